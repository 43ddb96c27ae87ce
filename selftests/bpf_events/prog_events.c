// SPDX-License-Identifier: GPL-2.0
/*
 * Baseline: PERF_RECORD_BPF_EVENT for programs, as Linux 6.1 emits it.
 * An event with attr.bpf_event gets PROG_LOAD with the program's id and
 * tag, stamped with the loader's pid/tid, and PROG_UNLOAD after the last
 * reference is gone.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "../kselftest_harness.h"
#include "bpf_events.h"

TEST(prog_load_unload)
{
	struct bpf_prog_info info;
	struct recorder r;
	struct rec *load, *unload;
	int fd, err;

	err = recorder_open(&r, true, false, 16);
	if (err == -EACCES || err == -EPERM)
		SKIP(return, "system-wide perf events need root or CAP_PERFMON");
	ASSERT_EQ(0, err) TH_LOG("perf_event_open: %s", strerror(-err));

	fd = prog_load(BPF_PROG_TYPE_SOCKET_FILTER);
	ASSERT_LE(0, fd) TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	ASSERT_EQ(0, obj_info(fd, &info, sizeof(info)));
	ASSERT_NE(0, info.id);

	load = recorder_wait(&r, PERF_BPF_EVENT_PROG_LOAD, info.id, 2000);
	ASSERT_NE(NULL, load) TH_LOG("no PROG_LOAD for program %u", info.id);
	EXPECT_EQ(0, load->flags);
	EXPECT_EQ(0, memcmp(load->tag, info.tag, BPF_TAG_SIZE));
	EXPECT_EQ(getpid(), load->pid);
	EXPECT_EQ(gettid_raw(), load->tid);
	EXPECT_EQ(1, recorder_count(&r, PERF_BPF_EVENT_PROG_LOAD, info.id));

	close(fd);
	/* The last put may be deferred to a workqueue: poll. */
	unload = recorder_wait(&r, PERF_BPF_EVENT_PROG_UNLOAD, info.id, 5000);
	ASSERT_NE(NULL, unload) TH_LOG("no PROG_UNLOAD for program %u", info.id);
	/* The recorder array may have moved: look the load up again. */
	load = recorder_find(&r, PERF_BPF_EVENT_PROG_LOAD, info.id);
	EXPECT_EQ(0, unload->flags);
	EXPECT_EQ(0, memcmp(unload->tag, info.tag, BPF_TAG_SIZE));
	EXPECT_LE(load->time, unload->time);
	EXPECT_EQ(1, recorder_count(&r, PERF_BPF_EVENT_PROG_UNLOAD, info.id));
	EXPECT_EQ(0, r.corrupt);
	EXPECT_EQ(0, r.lost);

	recorder_close(&r);
	recorder_free(&r);
}

TEST_HARNESS_MAIN
