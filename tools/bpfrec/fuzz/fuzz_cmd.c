// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of what users read: `bpfrec script` (FUZZ_SCRIPT) or
 * `bpfrec report` (FUZZ_REPORT) run end to end on the input as a file,
 * through the commands' own code: the ordered reader, tracepoint fields
 * with libtraceevent, BPF output decoded with its BTF, kernel and BPF
 * symbols, user mappings, profiles, and the text and JSON shown.  Any
 * input must give output or one error, never a crash, a hang or
 * undefined behaviour.  The input alternates between the commands'
 * forms by its length, so that one corpus serves all of them.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "builtin.h"

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd = memfd_create("fuzz.data", MFD_CLOEXEC);
	if (fd < 0) {
		perror("memfd_create");
		exit(1);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#ifdef FUZZ_REPORT
	char *forms[][6] = {
		{ "report", "-i", path, NULL },
		{ "report", "-i", path, "--sort", "sym,dso", NULL },
		{ "report", "-i", path, "--folded", NULL },
		{ "report", "-i", path, "--json", NULL },
	};
	int (*cmd)(int, char **) = cmd_report;
#else
	char *forms[][6] = {
		{ "script", "-i", path, NULL },
		{ "script", "-i", path, "--json", NULL },
	};
	int (*cmd)(int, char **) = cmd_script;
#endif
	size_t form = size % (sizeof(forms) / sizeof(forms[0]));
	int argc = 0;

	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	while (forms[form][argc])
		argc++;
	cmd(argc, forms[form]);
	fflush(stdout);
	return 0;
}
