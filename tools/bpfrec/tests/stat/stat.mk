# SPDX-License-Identifier: GPL-2.0
#
# The program the stat tests and benchmarks count (included by
# tools/bpfrec/Makefile): $(OUTPUT)/stat-prog, built from
# tests/stat/stat-prog.c and its BPF target tests/stat/target.bpf.c.

STAT_PROG := $(OUTPUT)/stat-prog

$(STAT_PROG): tests/stat/stat-prog.c $(OUTPUT)/tests/stat/target.skel.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LDLIBS) -o $@
