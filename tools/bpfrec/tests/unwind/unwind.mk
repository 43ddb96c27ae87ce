# SPDX-License-Identifier: GPL-2.0
#
# The unwinding tests' workloads (included by tools/bpfrec/Makefile), built
# as Debian builds programs: -O2, PIE, dynamic, no frame pointers.

LIBC_SLEEPER := $(OUTPUT)/libc-sleeper
UNWIND_PROGS := $(LIBC_SLEEPER)

$(LIBC_SLEEPER): tests/unwind/libc-sleeper.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -Wall $< -o $@
