// SPDX-License-Identifier: GPL-2.0
/*
 * The records of `perf stat record` (perf's util/synthetic-events.c and
 * stat.c read them): laid out here field by field, as perf 6.1 does.
 * They are user records: no sample_id trailer.
 */
#include <string.h>
#include "util/perf_data/format.h"

/* perf's enum aggr_mode and PERF_STAT_CONFIG_TERM__* */
#define AGGR_GLOBAL		1
#define CONFIG_AGGR_MODE	0
#define CONFIG_INTERVAL		1
#define CONFIG_SCALE		2

/* The CPU map entry perf reads as -1, "any CPU" (u16 on disk). */
#define CPU_ANY			0xffff
#define PERF_CPU_MAP_CPUS	0

static int put(struct pd_writer *w, __u32 type, const struct pd_buf *body)
{
	struct perf_event_header h = { .type = type, .size = sizeof(h) + body->len };
	struct pd_buf b = { 0 };
	int err;

	pd_buf_put(&b, &h, sizeof(h));
	pd_buf_put(&b, body->p, body->len);
	err = b.err ? b.err : pd_write_raw(w, (const struct perf_event_header *)b.p);
	pd_buf_free(&b);
	return err;
}

static int put_body(struct pd_writer *w, __u32 type, struct pd_buf *body)
{
	int err;

	pd_buf_align8(body);
	err = body->err ? body->err : put(w, type, body);
	pd_buf_free(body);
	return err;
}

int pd_write_stat_config(struct pd_writer *w, __u64 interval_ms)
{
	struct pd_buf b = { 0 };

	pd_buf_u64(&b, 3);
	pd_buf_u64(&b, CONFIG_AGGR_MODE);
	pd_buf_u64(&b, AGGR_GLOBAL);
	pd_buf_u64(&b, CONFIG_INTERVAL);
	pd_buf_u64(&b, interval_ms);
	/* enabled/running are real: perf scales by them, and says so when they differ */
	pd_buf_u64(&b, CONFIG_SCALE);
	pd_buf_u64(&b, 1);
	return put_body(w, PD_RECORD_STAT_CONFIG, &b);
}

int pd_write_stat_maps(struct pd_writer *w, __u32 pid, const char *comm)
{
	struct pd_buf b = { 0 };
	char name[16] = { 0 };
	__u16 cpus[3] = { PERF_CPU_MAP_CPUS, 1, CPU_ANY };
	int err;

	strncpy(name, comm, sizeof(name) - 1);
	pd_buf_u64(&b, 1);
	pd_buf_u64(&b, pid);
	pd_buf_put(&b, name, sizeof(name));
	err = put_body(w, PD_RECORD_THREAD_MAP, &b);
	if (err)
		return err;
	pd_buf_put(&b, cpus, sizeof(cpus));
	return put_body(w, PD_RECORD_CPU_MAP, &b);
}

int pd_write_stat(struct pd_writer *w, __u64 id, __u64 val, __u64 ena, __u64 run)
{
	struct pd_buf b = { 0 };

	pd_buf_u64(&b, id);
	pd_buf_u32(&b, (__u32)-1);	/* the CPU: "any", as in the map */
	pd_buf_u32(&b, 0);	/* index in the thread map */
	pd_buf_u64(&b, val);
	pd_buf_u64(&b, ena);
	pd_buf_u64(&b, run);
	return put_body(w, PD_RECORD_STAT, &b);
}

int pd_write_stat_round(struct pd_writer *w, enum pd_stat_round type, __u64 time)
{
	struct pd_buf b = { 0 };

	pd_buf_u64(&b, type);
	pd_buf_u64(&b, time);
	return put_body(w, PD_RECORD_STAT_ROUND, &b);
}
