// SPDX-License-Identifier: GPL-2.0
/*
 * pprof's profile.proto: see pprof.h.  The string table is the profile's
 * own (index = string id + 1, after pprof's mandatory ""), then the few
 * names of our own; functions and locations are the profile's frames
 * (id = frame id + 1), mappings its files (id = string id + 1).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "util/pprof.h"
#include "util/pprof.pb-c.h"

typedef Bpfrec__Pprof__Profile Profile;
typedef Bpfrec__Pprof__ValueType ValueType;
typedef Bpfrec__Pprof__Sample Sample;
typedef Bpfrec__Pprof__Label Label;
typedef Bpfrec__Pprof__Mapping Mapping;
typedef Bpfrec__Pprof__Location Location;
typedef Bpfrec__Pprof__Line Line;
typedef Bpfrec__Pprof__Function Function;

enum { S_SAMPLES, S_COUNT, S_CPU, S_OFF_CPU, S_NANOSECONDS, S_COMM, NR_OWN };

static const char *const own_strings[NR_OWN] = {
	[S_SAMPLES] = "samples", [S_COUNT] = "count", [S_CPU] = "cpu",
	[S_OFF_CPU] = "off-cpu", [S_NANOSECONDS] = "nanoseconds", [S_COMM] = "comm",
};

/* Everything the message points to, freed at once. */
struct pprof_build {
	Profile prof;
	ValueType types[2], *type_ptrs[2], period_type;
	char **strings;
	Sample *samples, **sample_ptrs;
	uint64_t *loc_ids;
	int64_t *values;
	Label *labels, **label_ptrs;
	Mapping *maps, **map_ptrs;
	Location *locs, **loc_ptrs;
	Line *lines, **line_ptrs;
	Function *funcs, **func_ptrs;
};

static void build_free(struct pprof_build *b)
{
	free(b->strings);
	free(b->samples);
	free(b->sample_ptrs);
	free(b->loc_ids);
	free(b->values);
	free(b->labels);
	free(b->label_ptrs);
	free(b->maps);
	free(b->map_ptrs);
	free(b->locs);
	free(b->loc_ptrs);
	free(b->lines);
	free(b->line_ptrs);
	free(b->funcs);
	free(b->func_ptrs);
}

static bool of_view(const struct profile *p, const struct profile_view *v, __u32 id, size_t *nr)
{
	const __u32 *w = profile_stack(p, id, nr);

	return w[STACK_EVENT] == (__u32)v->event && *nr > STACK_FRAMES;
}

static int64_t own(const struct profile *p, int which)
{
	return p->strs.nr + 1 + which;
}

static int build_strings(struct pprof_build *b, const struct profile *p)
{
	size_t i, n = p->strs.nr + 1 + NR_OWN;

	b->strings = calloc(n, sizeof(*b->strings));
	if (!b->strings)
		return -ENOMEM;
	b->strings[0] = "";
	for (i = 0; i < p->strs.nr; i++)
		b->strings[i + 1] = (char *)profile_str(p, i);
	for (i = 0; i < NR_OWN; i++)
		b->strings[p->strs.nr + 1 + i] = (char *)own_strings[i];
	b->prof.n_string_table = n;
	b->prof.string_table = b->strings;
	return 0;
}

/* A location, function and mapping for every frame the view's stacks use. */
static int build_frames(struct pprof_build *b, const struct profile *p,
			const struct profile_view *v)
{
	size_t nf = p->frames.nr, ns = p->strs.nr, i, k, nr, nl = 0, nm = 0;
	bool *used = calloc(nf + 1, 1), *file = calloc(ns + 1, 1);
	int err = -ENOMEM;

	if (!used || !file)
		goto out;
	for (i = 0; i < p->stacks.nr; i++) {
		const __u32 *w;

		if (!of_view(p, v, i, &nr))
			continue;
		w = profile_stack(p, i, &nr);
		for (k = STACK_FRAMES; k < nr; k++)
			used[w[k]] = true;
	}
	b->locs = calloc(nf + 1, sizeof(*b->locs));
	b->loc_ptrs = calloc(nf + 1, sizeof(*b->loc_ptrs));
	b->lines = calloc(nf + 1, sizeof(*b->lines));
	b->line_ptrs = calloc(nf + 1, sizeof(*b->line_ptrs));
	b->funcs = calloc(nf + 1, sizeof(*b->funcs));
	b->func_ptrs = calloc(nf + 1, sizeof(*b->func_ptrs));
	b->maps = calloc(ns + 1, sizeof(*b->maps));
	b->map_ptrs = calloc(ns + 1, sizeof(*b->map_ptrs));
	if (!b->locs || !b->loc_ptrs || !b->lines || !b->line_ptrs || !b->funcs ||
	    !b->func_ptrs || !b->maps || !b->map_ptrs)
		goto out;
	for (i = 0; i < nf; i++) {
		const struct frame *f;

		if (!used[i])
			continue;
		f = profile_frame(p, i);
		bpfrec__pprof__function__init(&b->funcs[nl]);
		b->funcs[nl].id = i + 1;
		b->funcs[nl].name = b->funcs[nl].system_name = f->sym + 1;
		/* a BPF frame's file: "PROG (id N)", the program it ran in */
		b->funcs[nl].filename = (f->kind == FRAME_BPF ? f->bpf : f->dso) + 1;
		b->func_ptrs[nl] = &b->funcs[nl];
		bpfrec__pprof__line__init(&b->lines[nl]);
		b->lines[nl].function_id = i + 1;
		b->line_ptrs[nl] = &b->lines[nl];
		bpfrec__pprof__location__init(&b->locs[nl]);
		b->locs[nl].id = i + 1;
		b->locs[nl].mapping_id = f->dso + 1;
		b->locs[nl].n_line = 1;
		b->locs[nl].line = &b->line_ptrs[nl];
		b->loc_ptrs[nl] = &b->locs[nl];
		nl++;
		if (file[f->dso])
			continue;
		file[f->dso] = true;
		bpfrec__pprof__mapping__init(&b->maps[nm]);
		b->maps[nm].id = f->dso + 1;
		b->maps[nm].filename = f->dso + 1;
		b->maps[nm].has_functions = true;
		b->map_ptrs[nm] = &b->maps[nm];
		nm++;
	}
	b->prof.n_location = b->prof.n_function = nl;
	b->prof.location = b->loc_ptrs;
	b->prof.function = b->func_ptrs;
	b->prof.n_mapping = nm;
	b->prof.mapping = b->map_ptrs;
	err = 0;
out:
	free(used);
	free(file);
	return err;
}

/* One sample per stack: its locations leaf first, its count and time, its comm. */
static int build_samples(struct pprof_build *b, const struct profile *p,
			 const struct profile_view *v)
{
	size_t i, k, nr, n = 0, nloc = 0;

	for (i = 0; i < p->stacks.nr; i++) {
		if (of_view(p, v, i, &nr)) {
			n++;
			nloc += nr - STACK_FRAMES;
		}
	}
	b->samples = calloc(n + 1, sizeof(*b->samples));
	b->sample_ptrs = calloc(n + 1, sizeof(*b->sample_ptrs));
	b->loc_ids = calloc(nloc + 1, sizeof(*b->loc_ids));
	b->values = calloc(2 * n + 1, sizeof(*b->values));
	b->labels = calloc(n + 1, sizeof(*b->labels));
	b->label_ptrs = calloc(n + 1, sizeof(*b->label_ptrs));
	if (!b->samples || !b->sample_ptrs || !b->loc_ids || !b->values || !b->labels ||
	    !b->label_ptrs)
		return -ENOMEM;
	n = nloc = 0;
	for (i = 0; i < p->stacks.nr; i++) {
		const __u32 *w;
		Sample *s;

		if (!of_view(p, v, i, &nr))
			continue;
		w = profile_stack(p, i, &nr);
		s = &b->samples[n];
		bpfrec__pprof__sample__init(s);
		s->location_id = &b->loc_ids[nloc];
		for (k = nr; k-- > STACK_FRAMES;)
			b->loc_ids[nloc++] = w[k] + 1;
		s->n_location_id = nr - STACK_FRAMES;
		s->value = &b->values[2 * n];
		s->value[0] = p->samples[i];
		s->value[1] = p->period[i];
		s->n_value = 2;
		bpfrec__pprof__label__init(&b->labels[n]);
		b->labels[n].key = own(p, S_COMM);
		b->labels[n].str = w[STACK_COMM] + 1;
		b->label_ptrs[n] = &b->labels[n];
		s->label = &b->label_ptrs[n];
		s->n_label = 1;
		b->sample_ptrs[n] = s;
		n++;
	}
	b->prof.n_sample = n;
	b->prof.sample = b->sample_ptrs;
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *c = buf;

	while (len) {
		ssize_t n = write(fd, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		c += n;
		len -= n;
	}
	return 0;
}

/* @len bytes at @buf, gzip-compressed, to @fd. */
static int gzip_to(int fd, const void *buf, size_t len)
{
	z_stream z = { .next_in = (Bytef *)buf, .avail_in = len };
	unsigned char out[1 << 16];
	int zr, err = 0;

	/* 15 + 16: a gzip header and trailer, not zlib's */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY))
		return -ENOMEM;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			err = -EIO;
			break;
		}
		err = write_all(fd, out, sizeof(out) - z.avail_out);
	} while (!err && zr != Z_STREAM_END);
	deflateEnd(&z);
	return err;
}

int pprof_write(const struct profile *p, const struct profile_view *v, int fd)
{
	struct pprof_build b = {};
	uint8_t *buf = NULL;
	size_t len;
	int err;

	bpfrec__pprof__profile__init(&b.prof);
	err = build_strings(&b, p);
	if (!err)
		err = build_frames(&b, p, v);
	if (!err)
		err = build_samples(&b, p, v);
	if (err)
		goto out;
	/* count and time of each stack: CPU time, or time off CPU */
	bpfrec__pprof__value_type__init(&b.types[0]);
	b.types[0].type = own(p, S_SAMPLES);
	b.types[0].unit = own(p, S_COUNT);
	bpfrec__pprof__value_type__init(&b.types[1]);
	b.types[1].type = own(p, v->off_cpu ? S_OFF_CPU : S_CPU);
	b.types[1].unit = own(p, S_NANOSECONDS);
	b.type_ptrs[0] = &b.types[0];
	b.type_ptrs[1] = &b.types[1];
	b.prof.sample_type = b.type_ptrs;
	b.prof.n_sample_type = 2;
	bpfrec__pprof__value_type__init(&b.period_type);
	b.period_type = b.types[1];
	b.prof.period_type = &b.period_type;
	/* what pprof shows first: what report shows, samples or time off CPU */
	b.prof.default_sample_type = v->off_cpu ? b.types[1].type : b.types[0].type;
	if (p->info->last_sample_time > p->info->first_sample_time)
		b.prof.duration_nanos = p->info->last_sample_time - p->info->first_sample_time;
	len = bpfrec__pprof__profile__get_packed_size(&b.prof);
	buf = malloc(len ? len : 1);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	bpfrec__pprof__profile__pack(&b.prof, buf);
	err = gzip_to(fd, buf, len);
out:
	free(buf);
	build_free(&b);
	return err;
}
