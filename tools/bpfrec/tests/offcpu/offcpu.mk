# SPDX-License-Identifier: GPL-2.0
#
# The off-CPU tests' workload (included by tools/bpfrec/Makefile):
# $(OUTPUT)/sleeper, static and not PIE so that its addresses are the
# file's, with frame pointers so that its user stack unwinds.

OFFCPU_SLEEPER := $(OUTPUT)/sleeper

$(OFFCPU_SLEEPER): tests/offcpu/sleeper.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O1 -g -fno-omit-frame-pointer -no-pie -static -pthread -Wall $< -o $@
