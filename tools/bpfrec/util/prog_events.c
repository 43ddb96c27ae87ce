// SPDX-License-Identifier: GPL-2.0
/* Lifecycle events written out: see prog_events.h. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "util/json.h"
#include "util/printable.h"
#include "util/prog_events.h"
#include "util/prog_metrics.h"

static const char *const kinds[] = {
	[SP_EV_LOAD] = "load", [SP_EV_ATTACH] = "attach", [SP_EV_FREE] = "free",
};

__u64 real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void iso_time(__u64 ns, char *buf, size_t len)
{
	time_t t = ns / 1000000000ULL;
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned int)(ns / 1000000 % 1000));
}

void prog_event_json(FILE *f, const struct sp_event *e, __u64 real)
{
	char buf[64], tag[2 * BPF_TAG_SIZE + 1];
	struct json j;
	int i;

	json_begin(&j, f);
	iso_time(real, buf, sizeof(buf));
	json_str(&j, "time", buf);
	json_str(&j, "event", kinds[e->kind]);
	json_u64(&j, "prog_id", e->prog_id);
	if (e->p) {
		for (i = 0; i < BPF_TAG_SIZE; i++)
			sprintf(tag + 2 * i, "%02x", e->p->tag[i]);
		json_str(&j, "name", e->p->name);
		json_str(&j, "type", prog_type_name(e->p->type, buf, sizeof(buf)));
		json_str(&j, "tag", tag);
	}
	if (e->kind == SP_EV_ATTACH) {
		json_u64(&j, "link_id", e->link_id);
		json_str(&j, "link_type", libbpf_bpf_link_type_str(e->link_type) ?: "unknown");
		json_str(&j, "target", e->target ? e->target : "");
	}
	if (e->kind == SP_EV_FREE && e->p) {
		json_u64(&j, "runs", e->p->cnt - e->p->base_cnt);
		json_u64(&j, "run_ns", e->p->ns - e->p->base_ns);
	}
	if (e->who && e->who->pid) {
		json_object(&j, e->kind == SP_EV_FREE ? "loader" : "by");
		json_u64(&j, "pid", e->who->pid);
		json_u64(&j, "tid", e->who->tid);
		json_u64(&j, "uid", e->who->uid);
		json_str(&j, "comm", e->who->comm);
		json_close(&j);
	}
	json_end(&j);
}

void prog_event_text(char *buf, size_t len, const struct sp_event *e, __u64 real)
{
	char name[64], comm[64], target[64], type[32];
	time_t t = real / 1000000000ULL;
	struct tm tm;
	int n;

	localtime_r(&t, &tm);
	n = snprintf(buf, len, "%02d:%02d:%02d %-6s id %-6u %s %s", tm.tm_hour, tm.tm_min,
		     tm.tm_sec, kinds[e->kind], e->prog_id,
		     e->p ? prog_type_name(e->p->type, type, sizeof(type)) : "?",
		     e->p ? printable(e->p->name, name, sizeof(name)) : "?");
	if (n < 0 || (size_t)n >= len)
		return;
	if (e->kind == SP_EV_ATTACH)
		n += snprintf(buf + n, len - n, " link %u %s %s", e->link_id,
			      libbpf_bpf_link_type_str(e->link_type) ?: "unknown",
			      printable(e->target ? e->target : "", target, sizeof(target)));
	if ((size_t)n >= len)
		return;
	if (e->who && e->who->pid)
		snprintf(buf + n, len - n, " %s %s[%u]", e->kind == SP_EV_FREE ? "loaded by" : "by",
			 printable(e->who->comm, comm, sizeof(comm)), e->who->pid);
	else if (e->kind == SP_EV_FREE)
		snprintf(buf + n, len - n, " (loader unknown)");
}
