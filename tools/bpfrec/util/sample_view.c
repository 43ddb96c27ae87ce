// SPDX-License-Identifier: GPL-2.0
/*
 * Samples as script shows them.  BPF images are replayed from the KSYMBOL
 * records in time order, as report's profile replays them
 * (util/bpf_images.c): registered, then removed when unregistered, so a
 * sample names the image its address was in when it was taken, and an
 * address freed by an unloaded program and reused by a later one names
 * the later one.  Only the images alive at that moment are held, so the
 * memory does not grow with the number of programs in the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "util/sample_view.h"

/*
 * A file without kallsyms of its own (perf's): its kernel frames are named
 * from @live, the user's word that they are the recording machine's, else
 * from this machine's when the file was recorded here (same host and
 * kernel release), as report names them.
 */
static void live_kallsyms(struct sample_view *v, struct pd_reader *r, const void *data,
			  size_t size, const char *live)
{
	const struct pd_file_info *in = pd_reader_info(r);
	const char *text;
	struct utsname u;
	size_t len = 0;

	if (data && (trace_fields_kallsyms(data, size, &text, &len) || len))
		return;
	if (live) {
		v->have_live = !ksyms_load(&v->live, live);
		return;
	}
	if (uname(&u) || !in->hostname || !in->osrelease || strcmp(u.nodename, in->hostname) ||
	    strcmp(u.release, in->osrelease))
		return;
	v->have_live = !ksyms_load(&v->live, "/proc/kallsyms");
}

int sample_view_open(struct sample_view *v, struct pd_reader *r, const char *kallsyms,
		     char *warn, size_t len)
{
	const void *data;
	size_t size = 0;
	char err[160];

	memset(v, 0, sizeof(*v));
	data = pd_reader_tracing_data(r, &size);
	live_kallsyms(v, r, data, size, kallsyms);
	if (!data)
		return 0;
	v->tep = trace_fields_open(data, size, err, sizeof(err));
	if (!v->tep)
		snprintf(warn, len, "%s: tracepoint fields and kernel symbols are not shown", err);
	return 0;
}

void sample_view_kernel_text(struct sample_view *v, __u64 text)
{
	__u64 ours;

	if (!v->have_live || !text)
		return;
	ours = ksyms_addr(&v->live, "_text");
	if (ours && ours != text) {
		ksyms_free(&v->live);
		v->have_live = false;
	}
}

void sample_view_free(struct sample_view *v)
{
	if (v->tep)
		trace_fields_close(v->tep);
	bpf_images_free(&v->images);
	if (v->have_live)
		ksyms_free(&v->live);
	memset(v, 0, sizeof(*v));
}

enum sv_kind sample_view_kind(const struct pd_event_info *ev)
{
	if (ev->name && !strcmp(ev->name, SV_OFFCPU_EVENT))
		return SV_OFFCPU;
	/* record --wakers: who woke an interval, written by the recorder */
	if (ev->name && !strcmp(ev->name, "offcpu-waker"))
		return SV_SAMPLE;
	switch (ev->attr.type) {
	case PERF_TYPE_TRACEPOINT:
		return SV_TRACEPOINT;
	case PERF_TYPE_SOFTWARE:
		/* the side-band's dummy and the objects' bpf-output carry no samples of ours */
		return ev->attr.config == PERF_COUNT_SW_DUMMY ||
		       ev->attr.config == PERF_COUNT_SW_BPF_OUTPUT ? SV_NONE : SV_SAMPLE;
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return SV_SAMPLE;
	}
	return SV_NONE;
}

int sample_view_ksymbol(struct sample_view *v, const struct pd_ksymbol *k)
{
	if (k->ksym_type != PERF_RECORD_KSYMBOL_TYPE_BPF)
		return 0;
	if (k->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) {
		bpf_images_del(&v->images, k->addr);
		return 0;
	}
	return bpf_images_add(&v->images, k->addr, k->len, k->ksym_type, k->name);
}

/* x86-64: the kernel's half of the address space */
#define KERNEL_START	0xffff800000000000ULL

enum sv_where sample_view_where(const struct sample_view *v, __u64 addr)
{
	if (addr < KERNEL_START)
		return SV_USER;
	return bpf_images_find(&v->images, addr) ? SV_BPF : SV_KERNEL;
}

const char *sample_view_sym(const struct sample_view *v, __u64 addr, __u64 *off)
{
	const struct bpf_image *img;

	if (addr < KERNEL_START)
		return NULL;
	img = bpf_images_find(&v->images, addr);
	if (img) {
		*off = addr - img->addr;
		return img->name;
	}
	if (v->have_live) {
		const struct ksym *s = ksyms_find(&v->live, addr);

		if (s) {
			*off = addr - s->addr;
			return s->name;
		}
	}
	return v->tep ? trace_fields_ksym(v->tep, addr, off) : NULL;
}
