# SPDX-License-Identifier: GPL-2.0
#
# The programs the stat tests and benchmarks use (included by
# tools/bpfrec/Makefile): $(OUTPUT)/stat-prog, the BPF program they count
# (tests/stat/stat-prog.c, its BPF target tests/stat/target.bpf.c, the
# benchmark's floor tests/stat/floor.bpf.c and the tail-call pair
# tests/stat/tailcall.bpf.c);
# $(OUTPUT)/perf-count, a plain perf event session to compare with; and
# $(OUTPUT)/spinner, a process with a busy and an idle thread.

STAT_PROG := $(OUTPUT)/stat-prog
PERF_COUNT := $(OUTPUT)/perf-count
SPINNER := $(OUTPUT)/spinner

$(STAT_PROG): tests/stat/stat-prog.c $(OUTPUT)/tests/stat/target.skel.h $(OUTPUT)/tests/stat/floor.skel.h \
		$(OUTPUT)/tests/stat/tailcall.skel.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LDLIBS) -o $@

$(PERF_COUNT): tests/stat/perf-count.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

$(SPINNER): tests/stat/spinner.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -pthread $< -o $@
