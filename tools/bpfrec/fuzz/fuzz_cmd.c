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
static char path[64], none[64];

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
	/*
	 * report names kernel frames from /proc/kallsyms when the input has
	 * no kallsyms of its own: 200000 symbols sorted under ASan take
	 * seconds, the machine's and not the input's.  An empty file instead.
	 */
	snprintf(none, sizeof(none), "/proc/self/fd/%d", memfd_create("kallsyms", MFD_CLOEXEC));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#ifdef FUZZ_REPORT
	char *forms[][8] = {
		{ "report", "-i", path, "--kallsyms", none, NULL },
		{ "report", "-i", path, "--kallsyms", none, "--sort", "sym,dso", NULL },
		{ "report", "-i", path, "--kallsyms", none, "--folded", NULL },
		{ "report", "-i", path, "--kallsyms", none, "--json", NULL },
	};
	int (*cmd)(int, char **) = cmd_report;
#else
	char *forms[][8] = {
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
