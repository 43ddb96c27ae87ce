/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The end that the metadata test's loaders share: print the program's id
 * as "prog=ID", then keep it loaded for 1 ms, or until stdin reaches its
 * end with -w, so that a test can look at it while it lives.
 */
#ifndef BPFREC_TESTS_PROG_HOLD_H
#define BPFREC_TESTS_PROG_HOLD_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

/* 0 once the program of @prog_fd was held; 1 when its id cannot be read. */
static inline int prog_print_and_hold(const char *who, int prog_fd, bool hold)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	char buf[64];

	memset(&info, 0, sizeof(info));
	if (prog_fd < 0 || bpf_obj_get_info_by_fd(prog_fd, &info, &len)) {
		fprintf(stderr, "%s: no program\n", who);
		return 1;
	}
	printf("prog=%u\n", info.id);
	fflush(stdout);
	if (hold)
		while (read(0, buf, sizeof(buf)) > 0)
			;
	else
		usleep(1000);
	return 0;
}

#endif /* BPFREC_TESTS_PROG_HOLD_H */
