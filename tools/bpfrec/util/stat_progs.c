// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of every BPF program: see stat_progs.h.
 *
 * A program is known by its load time and tag rather than by its id: the
 * kernel releases the id before it frees the program, so the freed hook
 * cannot report it, and both the syscalls and the hook report these two.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "util/array.h"
#include "util/bpf_resolve.h"
#include "util/debug.h"
#include "util/stat_progs.h"
#include "bpf_skel/capture.h"
#include "bpf_skel/stat_progs.h"
#include "bpf_skel/stat_progs.skel.h"

static __u64 key_of(__u64 load_time, const __u8 tag[BPF_TAG_SIZE])
{
	__u64 t;

	memcpy(&t, tag, sizeof(t));
	return load_time ^ t;
}

static struct sp_prog *find(struct stat_progs *s, __u64 load_time, const __u8 *tag)
{
	__u64 *v = hashmap_find(&s->by_key, key_of(load_time, tag));

	return v ? &s->p[*v - 1] : NULL;
}

/* The program of (@load_time, @tag), added zeroed when new (*created). */
static struct sp_prog *get(struct stat_progs *s, __u64 load_time, const __u8 *tag,
			   bool *created)
{
	struct sp_prog *p;
	__u64 *v;

	*created = false;
	p = find(s, load_time, tag);
	if (p)
		return p;
	if (array_room(&s->p, &s->cap_p, s->nr, sizeof(*s->p)))
		return NULL;
	v = hashmap_add(&s->by_key, key_of(load_time, tag), NULL);
	if (!v)
		return NULL;
	*v = ++s->nr;
	p = &s->p[s->nr - 1];
	memset(p, 0, sizeof(*p));
	p->load_time = load_time;
	memcpy(p->tag, tag, BPF_TAG_SIZE);
	*created = true;
	return p;
}

/* The full name: the main function's in BTF, else the 16-byte one. */
static void name_of(struct sp_prog *p, const char *short_name)
{
	struct pd_prog info = {};

	snprintf(p->name, sizeof(p->name), "%s", short_name);
	if (!p->id || resolve_prog(p->id, &info))
		return;
	if (info.nr_func_names && info.func_names[0][0])
		snprintf(p->name, sizeof(p->name), "%s", info.func_names[0]);
	pd_prog_free_arrays(&info);
}

static void origin_of(struct pd_origin *o, const struct cap_hdr *h)
{
	memset(o, 0, sizeof(*o));
	o->pid = h->pid;
	o->tid = h->tid;
	o->uid = h->uid;
	o->time = h->time;
	memcpy(o->comm, h->comm, sizeof(o->comm) - 1);
}

static void event(struct stat_progs *s, struct sp_event *e)
{
	if (s->on_event)
		s->on_event(s->event_ctx, e);
}

/* A link attached: to which program, by whom. */
static void on_link(struct stat_progs *s, const struct cap_link *l)
{
	struct sp_event e = { .kind = SP_EV_ATTACH, .prog_id = l->prog_id,
			      .link_id = l->hdr.id, .link_type = l->type };
	struct pd_origin who;
	size_t i;

	for (i = 0; i < s->nr && !e.p; i++)
		if (s->p[i].id == l->prog_id && s->p[i].state == SP_LIVE)
			e.p = &s->p[i];
	origin_of(&who, &l->hdr);
	e.who = &who;
	e.target = l->tp_name[0] ? l->tp_name : l->attach_func;
	event(s, &e);
}

/* The capture saw a program loaded: who did it, and its full name. */
static int on_capture(void *ctx, void *data, size_t size)
{
	const struct cap_prog *c = data;
	struct stat_progs *s = ctx;
	struct sp_event e = { .kind = SP_EV_LOAD };
	struct sp_prog *p;
	bool created;

	if (size >= sizeof(struct cap_link) && c->hdr.kind == CAP_LINK_ATTACH)
		on_link(s, data);
	if (size < sizeof(*c) || c->hdr.kind != CAP_PROG_LOAD)
		return 0;
	p = get(s, c->load_time, c->tag, &created);
	if (!p)
		return -ENOMEM;
	p->loader.pid = c->hdr.pid;
	p->loader.tid = c->hdr.tid;
	p->loader.uid = c->hdr.uid;
	memcpy(p->loader.comm, c->hdr.comm, sizeof(p->loader.comm));
	p->self = c->hdr.pid == s->self_pid;
	if (created) {
		/* loaded while we ran: all its runs are in the session */
		p->id = c->hdr.id;
		p->type = c->type;
		p->born = true;
		snprintf(p->name, sizeof(p->name), "%s",
			 c->nr_func_names && c->func_names[0][0] ? c->func_names[0] : c->name);
	}
	e.p = p;
	e.prog_id = c->hdr.id;
	e.who = &p->loader;
	event(s, &e);
	return 0;
}

static int on_freed(void *ctx, void *data, size_t size)
{
	const struct stat_freed *f = data;
	struct stat_progs *s = ctx;
	struct sp_prog *p;
	bool created;

	if (size < sizeof(*f))
		return 0;
	/* already on its way out when we started: none of its runs are ours */
	if (f->load_time < s->start_boottime && !find(s, f->load_time, f->tag))
		return 0;
	p = get(s, f->load_time, f->tag, &created);
	if (!p)
		return -ENOMEM;
	if (created) {
		/* nothing saw it load: what the hook knows is all there is */
		p->type = f->type;
		p->born = true;
		snprintf(p->name, sizeof(p->name), "%s", f->name);
	}
	p->cnt = f->run_cnt;
	p->ns = f->run_time_ns;
	if (p->state == SP_LIVE) {
		struct sp_event e = { .kind = SP_EV_FREE, .p = p, .prog_id = p->id,
				      .who = &p->loader };

		p->state = SP_FREED;
		event(s, &e);
	}
	return 0;
}

/* Every program the kernel lists now, with its totals. */
static int look(struct stat_progs *s, bool first)
{
	__u32 id = 0;
	size_t i;

	for (i = 0; i < s->nr; i++)
		s->p[i].listed = false;
	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		struct sp_prog *p;
		bool created;
		int fd;

		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue;	/* gone since: the freed hook has it */
		if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
			close(fd);
			continue;
		}
		close(fd);
		p = get(s, info.load_time, info.tag, &created);
		if (!p)
			return -ENOMEM;
		if (p->state != SP_LIVE)
			continue;	/* the hook's final counts win */
		p->listed = true;
		if (created || !p->id) {
			p->id = id;
			p->type = info.type;
			/* fentry/fexit need its function's BTF, and attach to no tracing program */
			p->hist_ok = info.btf_id && info.nr_func_info &&
				     info.type != BPF_PROG_TYPE_TRACING && info.type != BPF_PROG_TYPE_EXT;
			name_of(p, info.name);
		}
		if (created && first) {
			/* what it ran before bpfrec looked is not this session's */
			p->base_cnt = p->shown_cnt = info.run_cnt;
			p->base_ns = p->shown_ns = info.run_time_ns;
		} else if (created) {
			p->born = true;
		}
		p->cnt = info.run_cnt;
		p->ns = info.run_time_ns;
	}
	return errno == ENOENT ? 0 : -errno;
}

/* Our own programs are shown apart: their cost is bpfrec's. */
static void mark_self(struct stat_progs *s, struct bpf_object *obj)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		struct sp_prog *p;
		bool created;

		if (bpf_program__fd(prog) < 0 ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			continue;
		p = get(s, info.load_time, info.tag, &created);
		if (!p)
			continue;
		p->self = true;
		p->loader.pid = p->loader.tid = s->self_pid;
		snprintf(p->loader.comm, sizeof(p->loader.comm), "bpfrec");
	}
}

static int load_hook(struct stat_progs *s)
{
	int err;

	s->skel = stat_progs_bpf__open();
	if (!s->skel)
		return -errno;
	s->skel->rodata->nr_cpus = libbpf_num_possible_cpus();
	err = stat_progs_bpf__load(s->skel);
	if (!err)
		err = stat_progs_bpf__attach(s->skel);
	if (err)
		return err;
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.freed), on_freed, s, NULL);
	return s->rb ? 0 : -errno;
}

int stat_progs_open(struct stat_progs *s)
{
	const struct stat_progs_opts o = {};

	return stat_progs_open_opts(s, &o);
}

int stat_progs_open_opts(struct stat_progs *s, const struct stat_progs_opts *o)
{
	struct capture_opts cap_opts = {
		.buf_bytes = 1 << 22, .path = CAPTURE_AUTO, .kinds = CAPTURE_PROGS,
	};
	int err, i;

	struct timespec ts;

	memset(s, 0, sizeof(*s));
	s->stats_fd = -1;
	s->on_event = o->on_event;
	s->event_ctx = o->ctx;
	/* link records name the program they attach */
	if (o->on_event)
		cap_opts.kinds |= 1U << (CAP_LINK_ATTACH - 1);
	s->self_pid = getpid();
	clock_gettime(CLOCK_BOOTTIME, &ts);
	s->start_boottime = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	if (!o->lifecycle_only)
		s->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (!o->lifecycle_only && s->stats_fd < 0) {
		err = -errno;
		return errmsg_set(err, "cannot enable BPF run time stats: %s%s", strerror(-err),
				  err == -EPERM ? " (run as root or grant CAP_SYS_ADMIN)" : "");
	}
	err = load_hook(s);
	if (err)
		return errmsg_set(err, "cannot load the freed-program hook (%s): programs freed between intervals would be missed",
				  strerror(-err));
	/* without the capture only the loader is unknown: go on */
	if (!capture_start(&s->cap, &cap_opts, on_capture, s))
		s->have_cap = true;
	err = look(s, true);
	if (!err) {
		mark_self(s, s->skel->obj);
		for (i = 0; s->have_cap && capture_object(&s->cap, i); i++)
			mark_self(s, capture_object(&s->cap, i));
	}
	return err;
}

/* Programs out of the kernel's list whose final counts did not come yet. */
static size_t unfreed(const struct stat_progs *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr; i++)
		n += s->p[i].state == SP_LIVE && !s->p[i].listed;
	return n;
}

int stat_progs_read(struct stat_progs *s, bool last)
{
	int err, waited;

	/* loads first: a program then has its loader before anything else */
	if (s->have_cap && capture_drain(&s->cap) < 0)
		return -EIO;
	err = ring_buffer__consume(s->rb);
	if (err < 0)
		return err;
	err = look(s, false);
	if (err)
		return err;
	/* freed while we looked: those final counts win */
	err = ring_buffer__consume(s->rb);
	for (waited = 0; last && err >= 0 && waited < 1000 && unfreed(s); waited += 20)
		err = ring_buffer__poll(s->rb, 20);
	s->lost = s->skel->bss->drops;
	return err < 0 ? err : 0;
}

int stat_progs_drain(struct stat_progs *s)
{
	int err;

	if (s->have_cap && capture_drain(&s->cap) < 0)
		return -EIO;
	err = ring_buffer__consume(s->rb);
	s->lost = s->skel->bss->drops;
	return err < 0 ? err : 0;
}

int stat_progs_epoll_fds(const struct stat_progs *s, int fds[2])
{
	int n = 0;

	if (s->have_cap)
		fds[n++] = capture_epoll_fd(&s->cap);
	fds[n++] = ring_buffer__epoll_fd(s->rb);
	return n;
}

static const char *const sort_names[] = {
	[SP_SORT_TIME] = "time", [SP_SORT_RUNS] = "runs", [SP_SORT_AVG] = "avg",
	[SP_SORT_ID] = "id", [SP_SORT_NAME] = "name",
};

const char *sp_sort_name(enum sp_sort sort)
{
	return sort_names[sort];
}

int sp_parse_sort(const char *arg, enum sp_sort *sort)
{
	size_t i;

	for (i = 0; i < sizeof(sort_names) / sizeof(sort_names[0]); i++) {
		if (!strcmp(arg, sort_names[i])) {
			*sort = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* The greater first. */
static int cmp_desc(__u64 a, __u64 b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

int sp_cmp(enum sp_sort sort, const struct sp_prog *pa, const struct sp_sort_counts *a,
	   const struct sp_prog *pb, const struct sp_sort_counts *b)
{
	double avg_a = a->all_runs ? (double)a->all_ns / a->all_runs : 0;
	double avg_b = b->all_runs ? (double)b->all_ns / b->all_runs : 0;
	int c = 0;

	switch (sort) {
	case SP_SORT_TIME:
		c = cmp_desc(a->ns, b->ns);
		if (!c)
			c = cmp_desc(a->all_ns, b->all_ns);
		break;
	case SP_SORT_RUNS:
		c = cmp_desc(a->runs, b->runs);
		if (!c)
			c = cmp_desc(a->all_runs, b->all_runs);
		break;
	case SP_SORT_AVG:
		c = avg_a < avg_b ? 1 : avg_a > avg_b ? -1 : 0;
		break;
	case SP_SORT_NAME:
		c = strcmp(pa->name, pb->name);
		break;
	case SP_SORT_ID:
		break;
	}
	return c ? c : (pa->id > pb->id) - (pa->id < pb->id);
}

static enum sp_sort sort_key;

static int cmp_rows(const void *x, const void *y)
{
	const struct sp_row *a = x, *b = y;
	const struct sp_sort_counts ca = { a->runs, a->run_ns, a->runs, a->run_ns };
	const struct sp_sort_counts cb = { b->runs, b->run_ns, b->runs, b->run_ns };

	return sp_cmp(sort_key, a->p, &ca, b->p, &cb);
}

int stat_progs_rows(struct stat_progs *s, bool total, bool idle, enum sp_sort sort,
		    struct sp_row **rows, size_t *nr)
{
	struct sp_row *r = calloc(s->nr ? s->nr : 1, sizeof(*r));
	size_t i, n = 0;

	if (!r)
		return -ENOMEM;
	for (i = 0; i < s->nr; i++) {
		struct sp_prog *p = &s->p[i];
		__u64 from_cnt = total ? p->base_cnt : p->shown_cnt;
		__u64 from_ns = total ? p->base_ns : p->shown_ns;

		if (p->state == SP_GONE && !total)
			continue;
		/* counters only grow: less means a reading from before a reset */
		r[n].runs = p->cnt > from_cnt ? p->cnt - from_cnt : 0;
		r[n].run_ns = p->ns > from_ns ? p->ns - from_ns : 0;
		r[n].p = p;
		if (r[n].runs || idle)
			n++;
	}
	sort_key = sort;
	qsort(r, n, sizeof(*r), cmp_rows);
	*rows = r;
	*nr = n;
	return 0;
}

/* After the rows of an interval were shown: the next one starts here. */
void stat_progs_next_interval(struct stat_progs *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		struct sp_prog *p = &s->p[i];

		p->shown_cnt = p->cnt;
		p->shown_ns = p->ns;
		p->born = false;
		if (p->state == SP_FREED)
			p->state = SP_GONE;
	}
}

int stat_progs_prune(struct stat_progs *s, bool (*drop)(const struct sp_prog *p, void *ctx),
		     void *ctx)
{
	struct hashmap by_key = {};
	size_t i, n = 0;
	bool *gone = calloc(s->nr ? s->nr : 1, sizeof(*gone));

	if (!gone)
		return -ENOMEM;
	/* the new index first: out of memory leaves everything as it was */
	for (i = 0; i < s->nr; i++) {
		__u64 *v;

		gone[i] = drop(&s->p[i], ctx);
		if (gone[i])
			continue;
		v = hashmap_add(&by_key, key_of(s->p[i].load_time, s->p[i].tag), NULL);
		if (!v) {
			hashmap_free(&by_key);
			free(gone);
			return -ENOMEM;
		}
		*v = ++n;
	}
	for (i = 0, n = 0; i < s->nr; i++)
		if (!gone[i])
			s->p[n++] = s->p[i];
	free(gone);
	hashmap_free(&s->by_key);
	s->by_key = by_key;
	s->nr = n;
	return 0;
}

void stat_progs_close(struct stat_progs *s)
{
	ring_buffer__free(s->rb);
	stat_progs_bpf__destroy(s->skel);
	if (s->have_cap)
		capture_stop(&s->cap);
	if (s->stats_fd >= 0)
		close(s->stats_fd);
	free(s->p);
	hashmap_free(&s->by_key);
	memset(s, 0, sizeof(*s));
	s->stats_fd = -1;
}
