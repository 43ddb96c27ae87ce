// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a profile: one pass over the records in time order.  Side-band
 * records (COMM, FORK, MMAP, KSYMBOL, BPF_EVENT) keep the tasks' names,
 * the processes' mappings and the JIT images up to date; a sample's
 * addresses are named from that state, each distinct address once
 * (cached), and its stack is summed with the equal ones.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include "util/array.h"
#include "util/off_cpu_raw.h"
#include "util/printable.h"
#include "util/profile.h"
#include "util/sample_view.h"
#include "util/trace_fields.h"

#define KERNEL_DSO	"[kernel.kallsyms]"
/* user cache keys: a path id above, the file offset below */
#define UCACHE_OFF_BITS	40

/*
 * Every name of the profile (tasks, files, symbols) comes from the file
 * or from files it names: escaped once here, before any output shows it.
 */
static int str_id(struct profile *p, const char *s, __u32 *id)
{
	char text[4096];

	return intern_str(&p->strs, printable(s, text, sizeof(text)), id);
}

static int frame_id(struct profile *p, const struct frame *f, __u32 *id)
{
	return intern_blob(&p->frames, f, sizeof(*f), id);
}

/* The kallsyms of record time the file holds: 0, or why there are none. */
static const char *file_symbols(struct profile *p)
{
	const void *data;
	const char *text;
	size_t len, size;
	int err;

	data = pd_reader_tracing_data(p->reader, &len);
	if (!data)
		return "the file holds none";
	err = trace_fields_kallsyms(data, len, &text, &size);
	if (err)
		return err == -ENOMEM ? "out of memory" : "the file's tracing data is malformed";
	if (!size)
		return "the file holds none";
	err = ksyms_parse(&p->ksyms, text, size);
	if (err)
		return err == -EPERM ? "the file's kallsyms hide their addresses (recorded without root)" :
		       err == -ENOENT ? "the file's kallsyms list no symbol" : strerror(-err);
	return NULL;
}

/*
 * Kernel symbols: the kallsyms the file kept.  Else (perf's files) the
 * kallsyms of @live, the user's word that they are the recording
 * machine's; without it this machine's, only when the file was recorded
 * on it (same host, same kernel release).  The kernel MMAP record
 * confirms either later (same _text address: same boot).
 */
static void kernel_symbols(struct profile *p, const char *live)
{
	const struct pd_file_info *in = p->info;
	const char *why = file_symbols(p);
	struct utsname u;
	int err;

	if (!why) {
		p->have_ksyms = true;
		snprintf(p->ksyms_note, sizeof(p->ksyms_note),
			 "kernel symbols from the kallsyms the file kept (%zu symbols of %s)",
			 p->ksyms.nr, in->hostname ? in->hostname : "an unknown host");
		return;
	}
	if (!live && (uname(&u) || !in->hostname || !in->osrelease ||
		      strcmp(u.nodename, in->hostname) || strcmp(u.release, in->osrelease))) {
		snprintf(p->ksyms_note, sizeof(p->ksyms_note),
			 "kernel symbols not shown: %s and it was recorded on %s (kernel %s), not on this machine (--kallsyms names a copy)",
			 why, in->hostname ? in->hostname : "an unknown host",
			 in->osrelease ? in->osrelease : "unknown");
		return;
	}
	err = ksyms_load(&p->ksyms, live ? live : "/proc/kallsyms");
	if (err) {
		snprintf(p->ksyms_note, sizeof(p->ksyms_note),
			 "kernel symbols not shown: %s; %s: %s", why, live ? live : "/proc/kallsyms",
			 err == -EPERM ? "addresses hidden (kptr_restrict; run as root)" :
			 err == -ENOENT ? "no symbols" : strerror(-err));
		return;
	}
	p->have_ksyms = true;
	snprintf(p->ksyms_note, sizeof(p->ksyms_note), "kernel symbols from %s (%s)",
		 live ? live : "this machine's /proc/kallsyms", why);
}

/* perf's MMAP of "[kernel.kallsyms]_text" says where the kernel was. */
static void kernel_mmap(struct profile *p, const struct pd_record *rec)
{
	__u64 text;

	if (!p->have_ksyms || strncmp(rec->mmap.filename, KERNEL_DSO, strlen(KERNEL_DSO)))
		return;
	text = ksyms_addr(&p->ksyms, "_text");
	if (!text || text == rec->mmap.pgoff)
		return;
	ksyms_free(&p->ksyms);
	p->have_ksyms = false;
	hashmap_free(&p->kcache);
	snprintf(p->ksyms_note, sizeof(p->ksyms_note),
		 "kernel symbols not shown: the file's kernel _text (%#llx) is not this boot's (%#llx)",
		 (unsigned long long)rec->mmap.pgoff, (unsigned long long)text);
}

static int on_mmap(struct profile *p, const struct pd_record *rec)
{
	if (rec->mmap.pid == (__u32)-1)
		kernel_mmap(p, rec);
	return user_syms_record(&p->users, rec);
}

static int on_comm(struct profile *p, const struct pd_record *rec)
{
	__u64 *slot;
	__u32 id;

	if (user_syms_record(&p->users, rec) || str_id(p, rec->comm.comm, &id))
		return -ENOMEM;
	slot = hashmap_add(&p->comms, rec->comm.tid, NULL);
	if (!slot)
		return -ENOMEM;
	*slot = id;
	return 0;
}

static int on_fork(struct profile *p, const struct pd_record *rec)
{
	__u64 *parent = hashmap_find(&p->comms, rec->task.ptid), *slot;

	if (parent) {
		__u64 comm = *parent;

		slot = hashmap_add(&p->comms, rec->task.tid, NULL);
		if (!slot)
			return -ENOMEM;
		*slot = comm;
	}
	return user_syms_record(&p->users, rec);
}

/* The BTF name of function @type_id of BTF object @btf_id, from the file. */
static const char *btf_func_name(struct profile *p, __u32 btf_id, __u32 type_id)
{
	const struct pd_btf *b;
	const struct btf_type *t;
	struct btf *btf;
	__u64 *slot;
	bool added;

	slot = hashmap_add(&p->btfs, btf_id, &added);
	if (!slot)
		return NULL;
	if (added) {
		b = pd_reader_btf(p->reader, btf_id);
		btf = b && b->data ? btf__new(b->data, b->data_len) : NULL;
		*slot = (uintptr_t)btf;
	}
	btf = (struct btf *)(uintptr_t)*slot;
	t = btf ? btf__type_by_id(btf, type_id) : NULL;
	return t ? btf__name_by_offset(btf, t->name_off) : NULL;
}

/*
 * A PROG_LOAD names the images its KSYMBOLs announced just before: each
 * sub-program's function from the facts the file holds (BTF func_info),
 * else the program's id goes to the images of its tag.
 */
static int on_prog_load(struct profile *p, const struct pd_record *rec)
{
	const struct pd_prog *prog = pd_reader_prog(p->reader, rec->bpf.id);
	char tag[32], prog_name[128] = "";
	const char *func;
	__u32 j, nr;
	size_t i;
	int err;

	if (prog && prog->nr_ksyms) {
		nr = prog->nr_ksyms;
		for (j = nr; j-- > 0;) {
			/* the first function is the program's: named last, kept */
			func = NULL;
			if (j < prog->nr_func_names)
				func = prog->func_names[j];
			else if (j < prog->nr_func_info)
				func = btf_func_name(p, prog->btf_id, prog->func_info[j].type_id);
			/* btf_func_name() may have evicted @prog's cache entry */
			prog = pd_reader_prog(p->reader, rec->bpf.id);
			if (!j)
				snprintf(prog_name, sizeof(prog_name), "%s", func ? func : prog->name);
			err = bpf_images_set_prog(&p->images, prog->ksym_addrs[j], rec->bpf.id,
						  j ? NULL : prog_name, func);
			if (err == -ENOMEM)
				return err;
		}
		return 0;
	}
	snprintf(tag, sizeof(tag), "bpf_prog_%02x%02x%02x%02x%02x%02x%02x%02x_",
		 rec->bpf.tag[0], rec->bpf.tag[1], rec->bpf.tag[2], rec->bpf.tag[3],
		 rec->bpf.tag[4], rec->bpf.tag[5], rec->bpf.tag[6], rec->bpf.tag[7]);
	for (i = 0; i < p->images.nr; i++) {
		struct bpf_image *img = &p->images.v[i];

		if (!img->prog_id && !strncmp(img->name, tag, strlen(tag)) &&
		    bpf_images_set_prog(&p->images, img->addr, rec->bpf.id,
					bpf_image_func(img), NULL))
			return -ENOMEM;
	}
	return 0;
}

static int bpf_frame(struct profile *p, const struct bpf_image *img, __u32 *id)
{
	struct frame f = { .kind = FRAME_BPF };
	char what[160];

	if (img->ksym_type != PERF_RECORD_KSYMBOL_TYPE_BPF) {
		/* trampolines, dispatchers: kernel code of no program */
		f.kind = FRAME_KERNEL;
		f.bpf = p->none;
		if (str_id(p, img->name, &f.sym) || str_id(p, KERNEL_DSO, &f.dso))
			return -ENOMEM;
		return frame_id(p, &f, id);
	}
	if (img->prog_id)
		snprintf(what, sizeof(what), "%s (id %u)",
			 img->prog ? img->prog : bpf_image_func(img), img->prog_id);
	else
		snprintf(what, sizeof(what), "%s", bpf_image_func(img));
	if (str_id(p, bpf_image_func(img), &f.sym) || str_id(p, "[bpf]", &f.dso) ||
	    str_id(p, what, &f.bpf))
		return -ENOMEM;
	return frame_id(p, &f, id);
}

static int kernel_frame(struct profile *p, __u64 addr, __u32 *id)
{
	const struct bpf_image *img = bpf_images_find(&p->images, addr);
	struct frame f = { .kind = FRAME_KERNEL, .bpf = p->none };
	const struct ksym *ks;
	__u64 *slot;
	char mod[64];
	bool added;

	/* an image's address may serve another program later: not cached */
	if (img)
		return bpf_frame(p, img, id);
	slot = hashmap_add(&p->kcache, addr, &added);
	if (!slot)
		return -ENOMEM;
	if (!added) {
		*id = *slot;
		return 0;
	}
	ks = p->have_ksyms ? ksyms_find(&p->ksyms, addr) : NULL;
	snprintf(mod, sizeof(mod), "[%s]", ks && ks->module ? ks->module : "");
	if (str_id(p, ks ? ks->name : "[unknown]", &f.sym) ||
	    str_id(p, ks && ks->module ? mod : KERNEL_DSO, &f.dso) || frame_id(p, &f, id))
		return -ENOMEM;
	*slot = *id;
	return 0;
}

static int user_frame(struct profile *p, __u32 pid, __u64 addr, __u32 *id)
{
	const struct umap *m = user_syms_map(&p->users, pid, addr);
	struct frame f = { .kind = FRAME_USER, .bpf = p->none, .sym = p->unknown };
	__u64 off, *slot = NULL;
	const char *path, *name, *base;
	char dso[128];
	bool added;

	if (!m) {
		f.dso = p->unknown;
		return frame_id(p, &f, id);
	}
	off = addr - m->start + m->pgoff;
	if (off < 1ULL << UCACHE_OFF_BITS) {
		slot = hashmap_add(&p->ucache, (__u64)m->path << UCACHE_OFF_BITS | off, &added);
		if (!slot)
			return -ENOMEM;
		if (!added) {
			*id = *slot;
			return 0;
		}
	}
	path = user_syms_path(&p->users, m);
	name = user_syms_name(&p->users, m, addr, NULL);
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(dso, sizeof(dso), "[%s]", base);
	f.dso = m->path;
	if ((name ? str_id(p, name, &f.sym) : base[0] == '[' ? str_id(p, base, &f.sym) :
	     str_id(p, dso, &f.sym)) || frame_id(p, &f, id))
		return -ENOMEM;
	if (slot)
		*slot = *id;
	return 0;
}

static int push_frame(struct profile *p, size_t *nr, __u32 id)
{
	if (array_room(&p->scratch, &p->scratch_cap, *nr, sizeof(*p->scratch)))
		return -ENOMEM;
	p->scratch[(*nr)++] = id;
	return 0;
}

/*
 * A sample with a copy of its user stack (--call-graph dwarf): its user
 * frames unwound with the files' CFI into p->ubuf, @n of them; 0 when it
 * has none or the unwinding found no caller (the callchain's stand).
 */
static size_t dwarf_frames(struct profile *p, const struct pd_record *rec, bool user)
{
	const struct pd_sample *s = &rec->sample;
	const __u64 *fp = NULL;
	size_t nr_fp = 0, i;
	__u64 ip;

	if (!s->stack_user_dyn_size || !s->regs_user_abi)
		return 0;
	/* the frame-pointer walk of the same sample: the user context's entries */
	for (i = 0; i < s->nr_callchain; i++) {
		memcpy(&ip, &s->callchain[i], sizeof(ip));
		if (fp && ip >= PERF_CONTEXT_MAX)
			break;
		if (ip == PERF_CONTEXT_USER)
			fp = s->callchain + i + 1;
		else if (fp)
			nr_fp++;
	}
	if (!fp && !s->nr_callchain && user) {
		fp = &s->ip;
		nr_fp = 1;
	}
	return unwind_user(&p->unwind, &p->info->events[rec->event].attr, s, fp, nr_fp, p->ubuf,
			   UNWIND_MAX_FRAMES);
}

static int push_addr(struct profile *p, const struct pd_record *rec, bool user, __u64 ip,
		     size_t *nr)
{
	__u32 id;

	return (user ? user_frame(p, rec->sample.pid, ip, &id) : kernel_frame(p, ip, &id)) ?:
	       push_frame(p, nr, id);
}

/*
 * The frames of a sample, leaf first.  Callchain entries after the first
 * of a context are return addresses: the call is the byte before.  The
 * user context's entries give way to the frames unwound from the copy of
 * the stack, where the sample has one.
 */
static int sample_frames(struct profile *p, const struct pd_record *rec, size_t *nr)
{
	const struct pd_sample *s = &rec->sample;
	bool user = (rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER;
	size_t nr_dwarf = dwarf_frames(p, rec, user), j;
	bool first = true, skip = false;
	__u64 i, ip;
	int err;

	*nr = 0;
	if (!s->nr_callchain && nr_dwarf)
		goto unwound;
	if (!s->nr_callchain)
		return push_addr(p, rec, user, s->ip, nr);
	for (i = 0; i < s->nr_callchain; i++) {
		memcpy(&ip, &s->callchain[i], sizeof(ip));
		if (ip >= PERF_CONTEXT_MAX) {
			user = ip == PERF_CONTEXT_USER;
			first = true;
			skip = user && nr_dwarf;
			if (skip) {
				err = 0;
				goto unwound;
			}
			continue;
		}
		if (skip)
			continue;
		if (!first)
			ip--;
		first = false;
		err = push_addr(p, rec, user, ip, nr);
		if (err)
			return err;
	}
	return 0;
unwound:
	for (j = 0; j < nr_dwarf; j++) {
		err = push_addr(p, rec, true, j ? p->ubuf[j] - 1 : p->ubuf[j], nr);
		if (err)
			return err;
	}
	return 0;
}

/* Stack @words (@nr of them) gets @rec's period and one more sample. */
static int add_stack(struct profile *p, const __u32 *words, size_t nr, __u64 period,
		     __u32 *idp)
{
	__u32 id;

	if (intern_blob(&p->stacks, words, nr * sizeof(*words), &id))
		return -ENOMEM;
	*idp = id;
	if (id >= p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 1024;
		__u64 *np = realloc(p->period, cap * sizeof(*np)), *ns;

		if (!np)
			return -ENOMEM;
		p->period = np;
		ns = realloc(p->samples, cap * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		p->samples = ns;
		memset(p->period + p->cap, 0, (cap - p->cap) * sizeof(*np));
		memset(p->samples + p->cap, 0, (cap - p->cap) * sizeof(*ns));
		p->cap = cap;
	}
	p->period[id] += period;
	p->samples[id]++;
	return 0;
}

/* A waker's name, from the RAW of its sample: NUL-terminated within 16 bytes. */
static int waker_comm(struct profile *p, const struct pd_sample *s, __u32 *id)
{
	char comm[17] = "";

	if (s->raw && s->raw_size)
		memcpy(comm, s->raw, s->raw_size < 16 ? s->raw_size : 16);
	return comm[0] ? str_id(p, comm, id) : (*id = p->unknown, 0);
}

/* The waker sample written for the interval of @tid at @time, if any: its stack id + 1. */
static __u32 take_waker(struct profile *p, __u32 tid, __u64 time)
{
	__u64 *w = hashmap_find(&p->wakers, tid), *t = hashmap_find(&p->waker_times, tid);
	__u32 id;

	if (!w || !t || !*w || *t != time)
		return 0;
	id = *w;
	*w = 0;
	return id;
}

/* The leaf frames (scratch[0] on) that are the off-CPU profiler's, dropped. */
static void drop_profiler_frames(struct profile *p, size_t *nr)
{
	size_t n = 0;

	while (n < *nr && profile_frame(p, p->scratch[n])->kind != FRAME_USER &&
	       ksym_profiler_frame(profile_str(p, profile_frame(p, p->scratch[n])->sym)))
		n++;
	if (!n)
		return;
	memmove(p->scratch, p->scratch + n, (*nr - n) * sizeof(*p->scratch));
	*nr -= n;
}

static int on_sample(struct profile *p, const struct pd_record *rec)
{
	const struct pd_sample *s = &rec->sample;
	__u64 *comm = hashmap_find(&p->comms, s->tid), *slot;
	size_t nr, nr_frames, i;
	__u32 comm_id = comm ? *comm : p->unknown, state = 0, waker = 0, id;
	int err;

	if (rec->event < 0)
		return 0;
	p->event_samples[rec->event]++;
	err = sample_frames(p, rec, &nr_frames);
	if (err)
		return err;
	if (rec->event == p->waker_event) {
		err = waker_comm(p, s, &comm_id);
		if (err)
			return err;
	} else if (rec->event == p->offcpu_event) {
		if (!offcpu_raw_state(s->raw, s->raw_size, &state))
			state = 0;
		waker = take_waker(p, s->tid, s->time);
		/* the leaf frames of the profiler's own handler are not the task's */
		drop_profiler_frames(p, &nr_frames);
	} else if (!comm && !s->tid) {
		/* the idle task has no COMM record: perf calls it swapper */
		comm_id = p->swapper;
	}
	/* the stack's words, root first, go after the frames (leaf first) */
	nr = nr_frames;
	if (push_frame(p, &nr, rec->event) || push_frame(p, &nr, comm_id) ||
	    push_frame(p, &nr, state) || push_frame(p, &nr, waker) ||
	    push_frame(p, &nr, s->pid))
		return -ENOMEM;
	for (i = nr_frames; i-- > 0;)
		if (push_frame(p, &nr, p->scratch[i]))
			return -ENOMEM;
	err = add_stack(p, p->scratch + nr_frames, nr - nr_frames, s->period, &id);
	if (err || rec->event != p->waker_event)
		return err;
	/* for the interval of the woken thread (ADDR) written next */
	slot = hashmap_add(&p->wakers, (__u32)s->addr, NULL);
	if (!slot)
		return -ENOMEM;
	*slot = id + 1;
	slot = hashmap_add(&p->waker_times, (__u32)s->addr, NULL);
	if (!slot)
		return -ENOMEM;
	*slot = s->time;
	return 0;
}

static int on_record(struct profile *p, const struct pd_record *rec)
{
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(p, rec);
	case PERF_RECORD_COMM:
		return on_comm(p, rec);
	case PERF_RECORD_FORK:
		return on_fork(p, rec);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return on_mmap(p, rec);
	case PERF_RECORD_KSYMBOL:
		if (rec->ksymbol.flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) {
			bpf_images_del(&p->images, rec->ksymbol.addr);
			return 0;
		}
		return bpf_images_add(&p->images, rec->ksymbol.addr, rec->ksymbol.len,
				      rec->ksymbol.ksym_type, rec->ksymbol.name);
	case PERF_RECORD_BPF_EVENT:
		return rec->bpf.type == PERF_BPF_EVENT_PROG_LOAD ? on_prog_load(p, rec) : 0;
	case PERF_RECORD_LOST:
		p->lost_samples += rec->lost.lost;
		return 0;
	}
	return 0;
}

int profile_read(struct profile *p, const char *path, const char *kallsyms, char *err,
		 size_t errlen)
{
	struct pd_ordered *o;
	struct pd_record rec;
	int ret;

	memset(p, 0, sizeof(*p));
	p->users.strs = &p->strs;
	p->unwind.users = &p->users;
	p->reader = pd_reader_open(path, err, errlen);
	if (!p->reader)
		return -1;
	p->info = pd_reader_info(p->reader);
	p->event_samples = calloc(p->info->nr_events ? p->info->nr_events : 1,
				  sizeof(*p->event_samples));
	o = pd_ordered_new(p->reader);
	if (!o || !p->event_samples || str_id(p, "[unknown]", &p->unknown) ||
	    str_id(p, "swapper", &p->swapper) ||
	    str_id(p, "-", &p->none)) {
		pd_ordered_free(o);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	kernel_symbols(p, kallsyms);
	p->offcpu_event = profile_event(p, PROFILE_OFFCPU_EVENT);
	p->waker_event = profile_event(p, PROFILE_WAKER_EVENT);
	while ((ret = pd_ordered_next(o, &rec)) > 0) {
		ret = on_record(p, &rec);
		if (ret)
			break;
	}
	pd_ordered_free(o);
	if (ret) {
		snprintf(err, errlen, "%s", ret == -ENOMEM ? "out of memory" :
			 pd_reader_error(p->reader));
		return -1;
	}
	return 0;
}

int profile_event(const struct profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->info->nr_events; i++)
		if (p->info->events[i].name && !strcmp(p->info->events[i].name, name))
			return i;
	return -1;
}

int profile_cpu_event(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->info->nr_events; i++) {
		const char *name = p->info->events[i].name;

		if (p->event_samples[i] && !(name && (!strcmp(name, PROFILE_OFFCPU_EVENT) ||
						      !strcmp(name, PROFILE_WAKER_EVENT))))
			return i;
	}
	return -1;
}

const char *profile_event_name(const struct profile *p, int event)
{
	const char *name = p->info->events[event].name;

	return name ? name : "-";
}

const __u32 *profile_stack(const struct profile *p, __u32 id, size_t *nr)
{
	size_t len;
	const __u32 *w = intern_get(&p->stacks, id, &len);

	*nr = len / sizeof(*w);
	return w;
}

const struct frame *profile_frame(const struct profile *p, __u32 id)
{
	return intern_get(&p->frames, id, NULL);
}

void profile_free(struct profile *p)
{
	size_t i;

	for (i = 0; i < p->btfs.cap; i++)
		if (p->btfs.e[i].used)
			btf__free((struct btf *)(uintptr_t)p->btfs.e[i].val);
	hashmap_free(&p->btfs);
	hashmap_free(&p->comms);
	hashmap_free(&p->wakers);
	hashmap_free(&p->waker_times);
	hashmap_free(&p->kcache);
	hashmap_free(&p->ucache);
	intern_free(&p->strs);
	intern_free(&p->frames);
	intern_free(&p->stacks);
	free(p->period);
	free(p->samples);
	free(p->event_samples);
	free(p->scratch);
	ksyms_free(&p->ksyms);
	bpf_images_free(&p->images);
	unwind_free(&p->unwind);
	user_syms_free(&p->users);
	if (p->reader)
		pd_reader_close(p->reader);
	memset(p, 0, sizeof(*p));
}
