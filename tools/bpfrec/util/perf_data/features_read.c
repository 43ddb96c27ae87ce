// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding of perf.data header features into pd_file_info; the BPF
 * object facts go to the index of facts_read.c.
 * Input is untrusted: every length and offset is checked against the
 * section it comes from, and nothing read is used as a pointer.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/perf_data/format.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int decode_string(struct pd_cursor *c, char **dst)
{
	char *s = pd_cur_string(c);

	if (!s)
		return -EINVAL;
	free(*dst);
	*dst = s;
	return 0;
}

static int decode_cmdline(struct pd_cursor *c, struct pd_file_info *info)
{
	struct pd_buf b = { 0 };
	__u32 i, n = pd_cur_u32(c);

	for (i = 0; i < n && !c->bad; i++) {
		char *arg = pd_cur_string(c);

		if (!arg)
			break;
		if (i)
			pd_buf_put(&b, " ", 1);
		pd_buf_put(&b, arg, strlen(arg));
		free(arg);
	}
	pd_buf_put(&b, "", 1);
	if (c->bad || b.err) {
		pd_buf_free(&b);
		return -EINVAL;
	}
	free(info->cmdline);
	info->cmdline = b.p;
	return 0;
}

/*
 * The names of the events: the descriptions come in the order of the
 * attrs section, each with its attr (skipped: the attrs section is the
 * reference) and its ids.
 */
static int decode_event_desc(struct pd_cursor *c, struct pd_file_info *info)
{
	__u32 nr = pd_cur_u32(c), attr_size = pd_cur_u32(c), i;

	for (i = 0; i < nr && !c->bad; i++) {
		__u32 nr_ids;
		char *name;

		pd_cur_take(c, attr_size);
		nr_ids = pd_cur_u32(c);
		name = pd_cur_string(c);
		if (!name)
			return -EINVAL;
		if (nr_ids > (c->len - c->pos) / sizeof(__u64)) {
			free(name);
			return -EINVAL;
		}
		pd_cur_take(c, nr_ids * sizeof(__u64));
		if (i >= info->nr_events) {
			free(name);
			continue;
		}
		free(info->events[i].name);
		info->events[i].name = name;
	}
	return c->bad ? -EINVAL : 0;
}

int pd_feat_decode(int feat, const __u8 *p, size_t len, __u64 file_off,
		   struct pd_file_info *info, struct pd_fact_index *x,
		   char *err, size_t errlen)
{
	struct pd_cursor c = { .p = p, .len = len };
	int ret = 0;

	switch (feat) {
	case PD_HEADER_TRACING_DATA:
		/* parsed by its users (libtraceevent), from the file itself */
		info->tracing_data_offset = file_off;
		info->tracing_data_size = len;
		break;
	case PD_HEADER_HOSTNAME:
		ret = decode_string(&c, &info->hostname);
		break;
	case PD_HEADER_OSRELEASE:
		ret = decode_string(&c, &info->osrelease);
		break;
	case PD_HEADER_VERSION:
		ret = decode_string(&c, &info->version);
		break;
	case PD_HEADER_ARCH:
		ret = decode_string(&c, &info->arch);
		break;
	case PD_HEADER_CPUDESC:
		ret = decode_string(&c, &info->cpudesc);
		break;
	case PD_HEADER_NRCPUS:
		info->nr_cpus_avail = pd_cur_u32(&c);
		info->nr_cpus_online = pd_cur_u32(&c);
		break;
	case PD_HEADER_TOTAL_MEM:
		info->total_mem_kb = pd_cur_u64(&c);
		break;
	case PD_HEADER_CMDLINE:
		ret = decode_cmdline(&c, info);
		break;
	case PD_HEADER_SAMPLE_TIME:
		info->first_sample_time = pd_cur_u64(&c);
		info->last_sample_time = pd_cur_u64(&c);
		break;
	case PD_HEADER_EVENT_DESC:
		ret = decode_event_desc(&c, info);
		break;
	case PD_HEADER_STAT:
		info->stat = true;
		break;
	case PD_HEADER_CLOCKID:
		info->clock_res_ns = pd_cur_u64(&c);
		break;
	case PD_HEADER_CLOCK_DATA:
		/* a later version may lay it out otherwise: only 1 is known */
		if (pd_cur_u32(&c) != 1)
			break;
		info->clockid = pd_cur_u32(&c);
		info->clock_tod_ns = pd_cur_u64(&c);
		info->clock_ref_ns = pd_cur_u64(&c);
		info->has_clock_data = !c.bad;
		break;
	case PD_HEADER_BPF_PROG_INFO:
	case PD_HEADER_BPF_BTF:
	case PD_FEAT_BPFREC:
		ret = pd_fact_index_feature(x, feat, &c, file_off);
		break;
	default:
		return 0;
	}
	if (ret == -ENOMEM)
		return fail(err, errlen, "out of memory");
	if (ret || c.bad)
		return fail(err, errlen, "malformed feature %d at byte %zu",
			    feat, c.pos);
	return 0;
}

void pd_file_info_release(struct pd_file_info *info)
{
	size_t i;

	for (i = 0; i < info->nr_events; i++) {
		free(info->events[i].name);
		free(info->events[i].ids);
	}
	free(info->events);
	free(info->hostname);
	free(info->osrelease);
	free(info->version);
	free(info->arch);
	free(info->cpudesc);
	free(info->cmdline);
	memset(info, 0, sizeof(*info));
}
