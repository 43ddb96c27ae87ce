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

static int fd = -1, ksyms = -1;
static char path[64], kallsyms[64];

static const char fake_kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81001000 T do_syscall_64\n"
	"ffffffff81002000 t finish_task_switch\n"
	"ffffffff81003000 T __schedule\n"
	"ffffffff81004000 T bpf_prog_run\n"
	"ffffffffc0000000 t bpf_prog_0123456789abcdef_handler\t[bpf]\n"
	"ffffffffc0100000 t mod_func\t[mod]\n";

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
	 * script and report name kernel frames from /proc/kallsyms when the
	 * input has no kallsyms of its own and was recorded here, as the
	 * corpus was: 200000 symbols read and sorted under ASan take 150 ms
	 * per pass, the machine's time and not the input's (script made 4
	 * inputs a second so).  A few symbols of our own instead, through
	 * --kallsyms, so that kernel frames are still named.
	 */
	ksyms = memfd_create("kallsyms", MFD_CLOEXEC);
	if (ksyms < 0 || write(ksyms, fake_kallsyms, strlen(fake_kallsyms)) < 0) {
		perror("kallsyms");
		exit(1);
	}
	snprintf(kallsyms, sizeof(kallsyms), "/proc/self/fd/%d", ksyms);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#ifdef FUZZ_REPORT
	char *forms[][8] = {
		{ "report", "-i", path, "--kallsyms", kallsyms, NULL },
		{ "report", "-i", path, "--kallsyms", kallsyms, "--sort", "sym,dso", NULL },
		{ "report", "-i", path, "--kallsyms", kallsyms, "--folded", NULL },
		{ "report", "-i", path, "--kallsyms", kallsyms, "--json", NULL },
	};
	int (*cmd)(int, char **) = cmd_report;
#else
	char *forms[][8] = {
		{ "script", "-i", path, "--kallsyms", kallsyms, NULL },
		{ "script", "-i", path, "--kallsyms", kallsyms, "--json", NULL },
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
