// SPDX-License-Identifier: GPL-2.0
/*
 * The records of a perf.data that script and report show, in time order
 * (pd_ordered: round by round, not the whole file in memory), each with
 * the comm of its task.  The comm is followed through the COMM records in
 * that order, so an exec that renames a task applies from the right
 * moment on.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/timeline.h"
#include "util/user_syms.h"

/*
 * The addresses KSYMBOL records give the recorder's own programs: a look
 * at every program of the file, once.
 */
static int self_addrs(struct timeline *tl)
{
	struct pd_fact_iter it = {};
	const struct pd_prog *p;
	size_t cap = 0;
	__u32 id, j;

	while (pd_reader_next_fact(tl->reader, PD_PROG, &it, &id)) {
		p = pd_reader_prog(tl->reader, id);
		for (j = 0; p && (p->flags & PD_F_SELF) && j < p->nr_ksyms; j++) {
			if (array_room(&tl->self_addrs, &cap, tl->nr_self_addrs,
				       sizeof(*tl->self_addrs)))
				return -ENOMEM;
			tl->self_addrs[tl->nr_self_addrs++] = p->ksym_addrs[j];
		}
	}
	return 0;
}

int timeline_open(struct timeline *tl, const char *path, char *err, size_t errlen)
{
	memset(tl, 0, sizeof(*tl));
	tl->reader = pd_reader_open(path, err, errlen);
	if (!tl->reader)
		return -EINVAL;
	tl->info = pd_reader_info(tl->reader);
	tl->ordered = pd_ordered_new(tl->reader);
	tl->nr_samples = calloc(tl->info->nr_events, sizeof(*tl->nr_samples));
	if (!tl->ordered || !tl->nr_samples || self_addrs(tl)) {
		snprintf(err, errlen, "out of memory");
		timeline_close(tl);
		return -ENOMEM;
	}
	return 0;
}

bool timeline_prog_image(const struct pd_ksymbol *k, __u8 tag[BPF_TAG_SIZE], char *name)
{
	static const char prefix[] = "bpf_prog_";
	const char *s = k->name;
	unsigned int byte;
	int i;

	if (k->ksym_type != PERF_RECORD_KSYMBOL_TYPE_BPF || strncmp(s, prefix, sizeof(prefix) - 1))
		return false;
	s += sizeof(prefix) - 1;
	for (i = 0; i < BPF_TAG_SIZE; i++, s += 2) {
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) ||
		    sscanf(s, "%2x", &byte) != 1)
			return false;
		tag[i] = byte;
	}
	if (*s && *s != '_')
		return false;
	if (name)
		snprintf(name, TL_NAME_LEN, "%s", *s ? s + 1 : "");
	return true;
}

/*
 * The images a task registered or unregistered since its last program
 * event: the kernel writes a program's KSYMBOL records (one per function)
 * right before its PROG_LOAD or PROG_UNLOAD, from the same task.
 */
#define TL_IMAGES	4

struct images {
	int nr;
	__u8 tag[TL_IMAGES][BPF_TAG_SIZE];
	char *name[TL_IMAGES];
};

static struct images *images_of(struct timeline *tl, __u32 tid, bool add)
{
	__u64 *v = add ? hashmap_add(&tl->images, tid, NULL) : hashmap_find(&tl->images, tid);

	if (v && !*v)
		*v = (uintptr_t)calloc(1, sizeof(struct images));
	return v ? (struct images *)(uintptr_t)*v : NULL;
}

static void images_clear(struct images *im)
{
	while (im->nr)
		free(im->name[--im->nr]);
}

static int image_seen(struct timeline *tl, const struct pd_record *rec)
{
	__u8 tag[BPF_TAG_SIZE];
	struct images *im;

	if (!rec->has_sample || !timeline_prog_image(&rec->ksymbol, tag, tl->ksym_name))
		return 0;
	im = images_of(tl, rec->sample.tid, true);
	if (!im)
		return -ENOMEM;
	if (im->nr == TL_IMAGES)
		return 0;
	im->name[im->nr] = strdup(tl->ksym_name);
	if (!im->name[im->nr])
		return -ENOMEM;
	memcpy(im->tag[im->nr++], tag, BPF_TAG_SIZE);
	return 0;
}

/*
 * The name of the program of PROG_LOAD or PROG_UNLOAD @e, from the images
 * its task just reported: the one of its tag, else the first (a program
 * of several functions reports each function's tag, its main one first).
 */
static void pair_image(struct timeline *tl, struct tl_event *e)
{
	struct images *im = e->has_sample ? images_of(tl, e->sample.tid, false) : NULL;
	int i, pick = 0;

	if (!im || !im->nr)
		return;
	for (i = 0; i < im->nr; i++)
		if (!memcmp(im->tag[i], e->bpf.tag, BPF_TAG_SIZE))
			pick = i;
	snprintf(tl->ksym_name, sizeof(tl->ksym_name), "%s", im->name[pick]);
	if (tl->ksym_name[0])
		e->ksym_name = tl->ksym_name;
	images_clear(im);
}

/* From now on @tid is @comm; the string the map held before is freed. */
static int comm_set(struct timeline *tl, __u32 tid, const char *comm)
{
	__u64 *val = hashmap_add(&tl->comms, tid, NULL);
	char *copy = strdup(comm);

	if (!val || !copy) {
		free(copy);
		return -ENOMEM;
	}
	free((char *)(uintptr_t)*val);
	*val = (uintptr_t)copy;
	return 0;
}

static const char *comm_get(const struct timeline *tl, __u32 tid)
{
	__u64 *comm = hashmap_find(&tl->comms, tid);

	return comm ? (const char *)(uintptr_t)*comm : NULL;
}

/*
 * The program a link runs, followed through its described records: a
 * LINK_UPDATE without BPF_F_REPLACE names only the new one.
 */
static int follow_link(struct timeline *tl, struct tl_event *e)
{
	__u64 *prog;

	if (!e->bpf.described)
		return 0;
	if (e->bpf.type == PERF_BPF_EVENT_LINK_RELEASE) {
		prog = hashmap_find(&tl->link_progs, e->bpf.id);
		if (prog && *prog) {
			*prog = 0;
			tl->nr_link_progs--;
		}
		/* a storm's links must not stay in memory once released */
		return hashmap_prune(&tl->link_progs, tl->nr_link_progs);
	}
	prog = hashmap_add(&tl->link_progs, e->bpf.id, NULL);
	if (!prog)
		return -ENOMEM;
	if (e->bpf.type == PERF_BPF_EVENT_LINK_UPDATE)
		e->old_prog_id = e->bpf.desc.link.old_prog_id ? e->bpf.desc.link.old_prog_id :
				 (__u32)*prog;
	tl->nr_link_progs += !!e->bpf.desc.link.prog_id - !!*prog;
	*prog = e->bpf.desc.link.prog_id;
	return 0;
}

/*
 * What script and report show; COMM records name tasks, SAMPLEs are
 * counted, and delivered when asked (their raw data is the record's);
 * the task records keep the user mappings of @tl->users, when given.
 */
static bool take(struct timeline *tl, const struct pd_record *rec, struct tl_event *e, int *err)
{
	enum pd_bpf_change change;
	enum pd_kind kind;

	memset(e, 0, sizeof(*e));
	e->type = rec->type;
	e->has_sample = rec->has_sample;
	e->sample = rec->sample;
	switch (rec->type) {
	case PERF_RECORD_BPF_EVENT:
		e->bpf = rec->bpf;
		if (e->bpf.type == PERF_BPF_EVENT_PROG_LOAD ||
		    e->bpf.type == PERF_BPF_EVENT_PROG_UNLOAD)
			pair_image(tl, e);
		if (pd_bpf_event_kind(e->bpf.type, &kind, &change) && kind == PD_LINK)
			*err = follow_link(tl, e);
		if (*err)
			return false;
		break;
	case PERF_RECORD_KSYMBOL:
		e->ksymbol = rec->ksymbol;
		*err = image_seen(tl, rec);
		if (*err)
			return false;
		break;
	case PERF_RECORD_LOST:
		e->lost = rec->lost.lost;
		break;
	case PERF_RECORD_COMM:
		*err = comm_set(tl, rec->comm.tid, rec->comm.comm);
		if (!*err && tl->users)
			*err = user_syms_record(tl->users, rec);
		return false;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_FORK:
		/* perf's "[kernel.kallsyms]_text": where the kernel was */
		if (rec->type != PERF_RECORD_FORK && rec->mmap.pid == (__u32)-1 &&
		    !strncmp(rec->mmap.filename, "[kernel.kallsyms]", 17))
			tl->kernel_text = rec->mmap.pgoff;
		if (tl->users)
			*err = user_syms_record(tl->users, rec);
		return false;
	case PERF_RECORD_SAMPLE:
		if (rec->event >= 0)
			tl->nr_samples[rec->event]++;
		if (!tl->samples || rec->event < 0)
			return false;
		e->event = rec->event;
		break;
	default:
		return false;
	}
	if (e->has_sample)
		e->comm = comm_get(tl, e->sample.tid);
	return true;
}

int timeline_next(struct timeline *tl, struct tl_event *e, char *err, size_t errlen)
{
	struct pd_record rec;
	int ret, fail = 0;

	while ((ret = pd_ordered_next(tl->ordered, &rec)) > 0) {
		if (take(tl, &rec, e, &fail)) {
			tl->nr++;
			return 1;
		}
		if (fail) {
			ret = fail;
			break;
		}
	}
	if (ret < 0)
		snprintf(err, errlen, "%s", ret == -ENOMEM ? "out of memory" :
			 pd_reader_error(tl->reader));
	return ret;
}

void timeline_close(struct timeline *tl)
{
	size_t i;

	for (i = 0; i < tl->comms.cap; i++)
		if (tl->comms.e[i].used)
			free((char *)(uintptr_t)tl->comms.e[i].val);
	hashmap_free(&tl->comms);
	for (i = 0; i < tl->images.cap; i++) {
		if (!tl->images.e[i].used)
			continue;
		images_clear((struct images *)(uintptr_t)tl->images.e[i].val);
		free((void *)(uintptr_t)tl->images.e[i].val);
	}
	hashmap_free(&tl->images);
	hashmap_free(&tl->link_progs);
	free(tl->nr_samples);
	free(tl->self_addrs);
	pd_ordered_free(tl->ordered);
	pd_reader_close(tl->reader);
	memset(tl, 0, sizeof(*tl));
}

/* The creator of the object BPF record @e is about, and the fact's flags. */
static const struct pd_origin *creator(struct pd_reader *r,
				       const struct tl_event *e, __u32 *flags)
{
	enum pd_bpf_change change;
	const struct pd_prog *p;
	const struct pd_map *m;
	const struct pd_link *l;
	const struct pd_btf *b;
	enum pd_kind kind;

	*flags = 0;
	if (e->type != PERF_RECORD_BPF_EVENT || !pd_bpf_event_kind(e->bpf.type, &kind, &change))
		return NULL;
	switch (kind) {
	case PD_PROG:
		p = pd_reader_prog(r, e->bpf.id);
		*flags = p ? p->flags : 0;
		return p ? &p->origin : NULL;
	case PD_MAP:
		m = pd_reader_map(r, e->bpf.id);
		*flags = m ? m->flags : 0;
		return m ? &m->origin : NULL;
	case PD_LINK:
		l = pd_reader_link(r, e->bpf.id);
		*flags = l ? l->flags : 0;
		return l ? &l->origin : NULL;
	default:
		b = pd_reader_btf(r, e->bpf.id);
		*flags = b ? b->flags : 0;
		return b ? &b->origin : NULL;
	}
}

const char *timeline_comm(const struct timeline *tl, const struct tl_event *e)
{
	const struct pd_origin *o;
	__u32 flags;

	if (e->comm)
		return e->comm;
	/* The creator's comm names records from the creating process. */
	o = creator(tl->reader, e, &flags);
	if (o && o->comm[0] && e->has_sample && o->pid == e->sample.pid)
		return o->comm;
	return NULL;
}

bool timeline_self(const struct timeline *tl, const struct tl_event *e)
{
	__u32 flags;
	size_t i;

	if (e->type == PERF_RECORD_KSYMBOL) {
		for (i = 0; i < tl->nr_self_addrs; i++) {
			if (tl->self_addrs[i] == e->ksymbol.addr)
				return true;
		}
		return false;
	}
	creator(tl->reader, e, &flags);
	return flags & PD_F_SELF;
}

void timeline_time(__u64 ns, char *buf, size_t len)
{
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)(ns / 1000000000),
		 (unsigned long long)(ns % 1000000000 / 1000));
}

void timeline_duration(__u64 ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
}
