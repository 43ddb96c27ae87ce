// SPDX-License-Identifier: GPL-2.0
/*
 * Every output walks the interned stacks of one event; none holds more
 * than one entry per distinct stack, whatever the number of samples.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/fit.h"
#include "util/json.h"
#include "util/profile_print.h"
#include "util/timeline.h"
#include "util/user_syms.h"

/* Stacks listed one by one before the rest is summed. */
#define MAX_STACKS_LISTED	20
/* A column is not cut narrower than this (or its title) to fit the width. */
#define MIN_COLUMN		16
/* "  Overhead   Samples" */
#define NUMBERS_WIDTH		21
#define OFFCPU_WIDTH		15

static const char *const key_names[NR_SORT_KEYS] = { "comm", "dso", "sym", "bpf", "pid" };
static const char *const key_titles[NR_SORT_KEYS] = {
	"Command", "Shared Object", "Symbol", "BPF program", "Pid:Command"
};

int profile_parse_sort(struct profile_view *v, const char *spec, char *err, size_t errlen)
{
	const char *s = spec;
	size_t len, k;

	v->nr_keys = 0;
	while (*s) {
		len = strcspn(s, ",");
		for (k = 0; k < NR_SORT_KEYS; k++)
			if (strlen(key_names[k]) == len && !strncmp(s, key_names[k], len))
				break;
		if (k == NR_SORT_KEYS || v->nr_keys == NR_SORT_KEYS) {
			snprintf(err, errlen, "bad --sort '%s': keys are comm, dso, sym, bpf, pid",
				 spec);
			return -EINVAL;
		}
		v->keys[v->nr_keys++] = k;
		s += len;
		if (*s == ',' && *++s == '\0')
			break;
	}
	if (!v->nr_keys || s[-1] == ',') {
		snprintf(err, errlen, "bad --sort '%s': keys are comm, dso, sym, bpf, pid", spec);
		return -EINVAL;
	}
	return 0;
}

static __u64 weight(const struct profile *p, const struct profile_view *v, __u32 id)
{
	return v->off_cpu || v->wall ? p->period[id] : p->samples[id];
}

/* The stacks of the view's event (and of its off-CPU event, --wall), of its tasks (--comm). */
static bool of_view(const struct profile *p, const struct profile_view *v, __u32 id)
{
	size_t nr, i;
	const __u32 *w = profile_stack(p, id, &nr);
	__u32 ev = w[STACK_EVENT];

	if (ev != (__u32)v->event && !(v->wall && ev == (__u32)v->off_event))
		return false;
	for (i = 0; i < v->nr_comms; i++)
		if (!strcmp(profile_str(p, w[STACK_COMM]), v->comms[i]))
			return true;
	return !v->nr_comms;
}

static bool off_stack(const struct profile *p, const struct profile_view *v, __u32 id)
{
	size_t nr;

	return v->wall && profile_stack(p, id, &nr)[STACK_EVENT] == (__u32)v->off_event;
}

/* The last frame of a --wall stack: where the time went. */
static void state_frame(const struct profile *p, const struct profile_view *v, __u32 id,
			char *buf, size_t len)
{
	static const char letters[] = "RSDTI";
	size_t nr;
	__u32 st = profile_stack(p, id, &nr)[STACK_STATE];
	int bit = st ? __builtin_ctz(st) : -1;

	if (!off_stack(p, v, id))
		snprintf(buf, len, "[on CPU]");
	else if (bit >= 0 && bit < 5)
		snprintf(buf, len, "[off CPU: %c]", letters[bit]);
	else
		snprintf(buf, len, "[off CPU]");
}

/* A frame's name as folded text keeps it: no ';' or line break inside. */
static void put_frame(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' || *s == '\n' ? '_' : *s, f);
}

/*
 * "comm;root;...;leaf": with --wall, the state after the leaf; with a
 * waker, "--", its frames from the leaf down and its name, as
 * offwaketime folds them (the waker's stack drawn above the sleeper's).
 */
static char *folded_text(const struct profile *p, const struct profile_view *v, __u32 id)
{
	size_t nr, nw, i, len;
	const __u32 *w = profile_stack(p, id, &nr), *ww;
	char *buf = NULL, state[32];
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	put_frame(f, profile_str(p, w[STACK_COMM]));
	for (i = STACK_FRAMES; i < nr; i++) {
		fputc(';', f);
		put_frame(f, profile_str(p, profile_frame(p, w[i])->sym));
	}
	if (v->wall) {
		state_frame(p, v, id, state, sizeof(state));
		fprintf(f, ";%s", state);
	}
	if (w[STACK_WAKER]) {
		ww = profile_stack(p, w[STACK_WAKER] - 1, &nw);
		fputs(";--", f);
		for (i = nw; i-- > STACK_FRAMES;) {
			fputc(';', f);
			put_frame(f, profile_str(p, profile_frame(p, ww[i])->sym));
		}
		fputc(';', f);
		put_frame(f, profile_str(p, ww[STACK_COMM]));
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int folded_cmp(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->text, ((const struct folded *)b)->text);
}

void profile_folded_free(struct folded *f, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(f[i].text);
	free(f);
}

int profile_folded(const struct profile *p, const struct profile_view *v, struct folded **out,
		   size_t *nr)
{
	struct folded *f = NULL;
	size_t n = 0, cap = 0, i, j;
	__u32 id;

	for (id = 0; id < p->stacks.nr; id++) {
		if (!of_view(p, v, id) || !weight(p, v, id))
			continue;
		if (array_room(&f, &cap, n, sizeof(*f)))
			goto nomem;
		f[n].weight = weight(p, v, id);
		f[n].off_weight = off_stack(p, v, id) ? f[n].weight : 0;
		f[n].text = folded_text(p, v, id);
		if (!f[n++].text)
			goto nomem;
	}
	if (n)
		qsort(f, n, sizeof(*f), folded_cmp);
	/* frames of other files or programs may read the same */
	for (i = j = 0; i < n; i++) {
		if (j && !strcmp(f[j - 1].text, f[i].text)) {
			f[j - 1].weight += f[i].weight;
			f[j - 1].off_weight += f[i].off_weight;
			free(f[i].text);
			continue;
		}
		f[j++] = f[i];
	}
	*out = f;
	*nr = j;
	return 0;
nomem:
	profile_folded_free(f, n);
	return -ENOMEM;
}

int profile_print_folded(const struct profile *p, const struct profile_view *v, FILE *f)
{
	struct folded *lines;
	size_t nr, i;

	if (profile_folded(p, v, &lines, &nr))
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		fprintf(f, "%s %llu\n", lines[i].text, (unsigned long long)lines[i].weight);
	profile_folded_free(lines, nr);
	return 0;
}

/* Key @k of stack @id: a string id. */
static __u32 key_of(const struct profile *p, __u32 id, enum sort_key k)
{
	size_t nr;
	const __u32 *w = profile_stack(p, id, &nr);
	const struct frame *leaf;

	if (k == SORT_COMM)
		return w[STACK_COMM];
	if (k == SORT_PID)
		return w[STACK_PID];
	if (nr == STACK_FRAMES)
		return p->unknown;
	leaf = profile_frame(p, w[nr - 1]);
	return k == SORT_DSO ? leaf->dso : k == SORT_SYM ? leaf->sym : leaf->bpf;
}

struct row {
	__u32 keys[NR_SORT_KEYS];
	__u64 period, samples;
	__u32 stack;			/* its first stack: the comm of a pid */
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	size_t k;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	for (k = 0; k < NR_SORT_KEYS; k++)
		if (x->keys[k] != y->keys[k])
			return x->keys[k] < y->keys[k] ? -1 : 1;
	return 0;
}

/* Rows of equal keys summed; *total is the period of them all. */
static int rows(const struct profile *p, const struct profile_view *v, struct row **out,
		size_t *nr, __u64 *total, __u64 *samples)
{
	struct intern tuples = {};
	struct row *r = NULL;
	size_t cap = 0, n = 0, k;
	__u32 id, t, key[NR_SORT_KEYS];

	*total = *samples = 0;
	for (id = 0; id < p->stacks.nr; id++) {
		if (!of_view(p, v, id))
			continue;
		for (k = 0; k < v->nr_keys; k++)
			key[k] = key_of(p, id, v->keys[k]);
		if (intern_blob(&tuples, key, v->nr_keys * sizeof(*key), &t))
			goto nomem;
		if (t == n) {
			if (array_room(&r, &cap, n, sizeof(*r)))
				goto nomem;
			memset(&r[n], 0, sizeof(*r));
			memcpy(r[n].keys, key, sizeof(key));
			r[n++].stack = id;
		}
		r[t].period += p->period[id];
		r[t].samples += p->samples[id];
		*total += p->period[id];
		*samples += p->samples[id];
	}
	intern_free(&tuples);
	if (n)
		qsort(r, n, sizeof(*r), row_cmp);
	*out = r;
	*nr = n;
	return 0;
nomem:
	intern_free(&tuples);
	free(r);
	return -ENOMEM;
}

/* Key @k of row @r as shown, in @buf when it is built. */
static const char *key_text(const struct profile *p, const struct row *r, size_t i,
			    enum sort_key k, char *buf, size_t len)
{
	size_t nr;

	if (k == SORT_PID) {
		snprintf(buf, len, "%u:%s", r->keys[i],
			 profile_str(p, profile_stack(p, r->stack, &nr)[STACK_COMM]));
		return buf;
	}
	return k == SORT_DSO ? user_syms_base_name(profile_str(p, r->keys[i])) :
			       profile_str(p, r->keys[i]);
}

static void table_json(const struct profile *p, const struct profile_view *v,
		       const struct row *r, __u64 total, FILE *f)
{
	struct json j;
	char pct[32];
	size_t k;

	json_begin(&j, f);
	snprintf(pct, sizeof(pct), "%.2f", total ? 100.0 * r->period / total : 0.0);
	json_raw(&j, "overhead", pct);
	json_u64(&j, "samples", r->samples);
	json_u64(&j, v->off_cpu ? "offcpu_ns" : "period", r->period);
	for (k = 0; k < v->nr_keys; k++) {
		if (v->keys[k] == SORT_PID)
			json_u64(&j, "pid", r->keys[k]);
		else
			json_str(&j, key_names[v->keys[k]], profile_str(p, r->keys[k]));
	}
	json_end(&j);
}

/*
 * The widths of the key columns: each as wide as its longest text, and
 * when the row is wider than v->width, the widest narrowed first, down to
 * MIN_COLUMN, then widened again until its cut texts are all distinct.
 */
static int fit_columns(const struct profile *p, const struct profile_view *v,
		       const struct row *r, size_t nr, int *width)
{
	const char **texts = calloc(nr ? nr : 1, sizeof(*texts));
	char (*bufs)[32] = calloc(nr ? nr : 1, sizeof(*bufs));
	int natural[NR_SORT_KEYS], least, used, widest;
	size_t i, k;

	if (!texts || !bufs) {
		free(texts);
		free(bufs);
		return -ENOMEM;
	}
	used = NUMBERS_WIDTH + (v->off_cpu ? OFFCPU_WIDTH : 0);
	for (k = 0; k < v->nr_keys; k++) {
		width[k] = strlen(key_titles[v->keys[k]]);
		for (i = 0; i < nr; i++) {
			int w = strlen(key_text(p, &r[i], k, v->keys[k], bufs[i], sizeof(bufs[i])));

			width[k] = w > width[k] ? w : width[k];
		}
		natural[k] = width[k];
		used += 2 + width[k];
	}
	while (v->width && used > v->width) {
		for (k = 0, widest = -1; k < v->nr_keys; k++) {
			least = strlen(key_titles[v->keys[k]]);
			least = least > MIN_COLUMN ? least : MIN_COLUMN;
			if (width[k] > least && (widest < 0 || width[k] > width[widest]))
				widest = k;
		}
		if (widest < 0)
			break;
		width[widest]--;
		used--;
	}
	for (k = 0; k < v->nr_keys; k++) {
		if (width[k] == natural[k])
			continue;
		for (i = 0; i < nr; i++)
			texts[i] = key_text(p, &r[i], k, v->keys[k], bufs[i], sizeof(bufs[i]));
		width[k] = fit_unique_width(texts, nr, width[k]);
	}
	free(texts);
	free(bufs);
	return 0;
}

int profile_print_table(const struct profile *p, const struct profile_view *v, FILE *f)
{
	int width[NR_SORT_KEYS];
	__u64 total, samples;
	struct row *r;
	size_t nr, i, k;
	char t[32], buf[32], cut[512];

	if (rows(p, v, &r, &nr, &total, &samples))
		return -ENOMEM;
	for (i = 0; v->json && i < nr; i++)
		table_json(p, v, &r[i], total, f);
	if (v->json)
		goto out;
	if (fit_columns(p, v, r, nr, width)) {
		free(r);
		return -ENOMEM;
	}
	fprintf(f, "#\n# %8s %9s%s", "Overhead", "Samples", v->off_cpu ? "   Off-CPU time" : "");
	for (k = 0; k < v->nr_keys; k++)
		fprintf(f, "  %-*s", k + 1 < v->nr_keys ? width[k] : 0, key_titles[v->keys[k]]);
	fprintf(f, "\n#\n");
	for (i = 0; i < nr; i++) {
		fprintf(f, "  %8.2f%% %9llu", total ? 100.0 * r[i].period / total : 0.0,
			(unsigned long long)r[i].samples);
		if (v->off_cpu) {
			timeline_duration(r[i].period, t, sizeof(t));
			fprintf(f, " %14s", t);
		}
		for (k = 0; k < v->nr_keys; k++)
			fprintf(f, "  %-*s", k + 1 < v->nr_keys ? width[k] : 0,
				fit_cut(key_text(p, &r[i], k, v->keys[k], buf, sizeof(buf)), width[k],
					cut, sizeof(cut)));
		fputc('\n', f);
	}
	if (v->off_cpu) {
		timeline_duration(total, t, sizeof(t));
		fprintf(f, "#\n# total: %s off CPU in %llu intervals\n", t,
			(unsigned long long)samples);
	}
out:
	free(r);
	return 0;
}

static int by_period(const void *a, const void *b, void *arg)
{
	const struct profile *p = arg;
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	if (p->period[x] != p->period[y])
		return p->period[x] > p->period[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void stack_text(const struct profile *p, const struct profile_view *v, __u32 id,
		       __u64 total, FILE *f)
{
	size_t nr, i;
	const __u32 *w = profile_stack(p, id, &nr);
	char t[32], state[32];

	timeline_duration(p->period[id], t, sizeof(t));
	state_frame(p, v, id, state, sizeof(state));
	fprintf(f, "\n  %s, %.2f%%, %llu %s: %s%s%s\n", t, total ? 100.0 * p->period[id] / total : 0,
		(unsigned long long)p->samples[id],
		v->off_cpu || off_stack(p, v, id) ? "intervals" : "samples",
		profile_str(p, w[STACK_COMM]), v->wall ? " " : "", v->wall ? state : "");
	for (i = nr; i-- > STACK_FRAMES;) {
		const struct frame *fr = profile_frame(p, w[i]);

		fprintf(f, "      %-40s %s\n", profile_str(p, fr->sym),
			user_syms_base_name(profile_str(p, fr->dso)));
	}
	if (!w[STACK_WAKER])
		return;
	w = profile_stack(p, w[STACK_WAKER] - 1, &nr);
	fprintf(f, "    woken by %s:\n", profile_str(p, w[STACK_COMM]));
	for (i = nr; i-- > STACK_FRAMES;) {
		const struct frame *fr = profile_frame(p, w[i]);

		fprintf(f, "      %-40s %s\n", profile_str(p, fr->sym),
			user_syms_base_name(profile_str(p, fr->dso)));
	}
}

static int stack_json(const struct profile *p, const struct profile_view *v, __u32 id, FILE *f)
{
	size_t nr;
	const __u32 *w = profile_stack(p, id, &nr);
	char *text = folded_text(p, v, id), state[32];
	struct json j;

	if (!text)
		return -ENOMEM;
	json_begin(&j, f);
	json_str(&j, "comm", profile_str(p, w[STACK_COMM]));
	if (v->wall) {
		state_frame(p, v, id, state, sizeof(state));
		json_str(&j, "state", state);
		json_u64(&j, "ns", p->period[id]);
		json_u64(&j, off_stack(p, v, id) ? "intervals" : "samples", p->samples[id]);
	} else {
		json_u64(&j, v->off_cpu ? "offcpu_ns" : "period", p->period[id]);
		json_u64(&j, v->off_cpu ? "intervals" : "samples", p->samples[id]);
	}
	json_str(&j, "stack", strchr(text, ';') ? strchr(text, ';') + 1 : "");
	json_end(&j);
	free(text);
	return 0;
}

int profile_print_stacks(const struct profile *p, const struct profile_view *v, FILE *f)
{
	__u64 total = 0, rest = 0, samples = 0;
	__u32 *ids = calloc(p->stacks.nr ? p->stacks.nr : 1, sizeof(*ids)), id;
	size_t n = 0, i;
	char t[32];
	int err = 0;

	if (!ids)
		return -ENOMEM;
	for (id = 0; id < p->stacks.nr; id++) {
		if (!of_view(p, v, id))
			continue;
		ids[n++] = id;
		total += p->period[id];
		samples += p->samples[id];
	}
	qsort_r(ids, n, sizeof(*ids), by_period, (void *)p);
	for (i = 0; i < n && !err; i++) {
		if (v->json)
			err = stack_json(p, v, ids[i], f);
		else if (i < MAX_STACKS_LISTED)
			stack_text(p, v, ids[i], total, f);
		else
			rest += p->period[ids[i]];
	}
	if (!v->json && n > MAX_STACKS_LISTED) {
		timeline_duration(rest, t, sizeof(t));
		fprintf(f, "\n  %s in the %zu other stacks\n", t, n - MAX_STACKS_LISTED);
	}
	if (!v->json) {
		timeline_duration(total, t, sizeof(t));
		fprintf(f, "\n# total: %s %s in %llu %s, %zu stacks\n", t,
			v->wall ? "on and off CPU" : v->off_cpu ? "off CPU" : "on CPU",
			(unsigned long long)samples,
			v->wall ? "samples and intervals" : v->off_cpu ? "intervals" : "samples", n);
	}
	free(ids);
	return err;
}
