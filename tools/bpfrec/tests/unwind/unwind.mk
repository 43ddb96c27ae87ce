# SPDX-License-Identifier: GPL-2.0
#
# The unwinding tests' workloads (included by tools/bpfrec/Makefile), built
# as Debian builds programs: -O2, PIE, dynamic, no frame pointers.

LIBC_SLEEPER := $(OUTPUT)/libc-sleeper
UNWIND_PROGS := $(LIBC_SLEEPER) $(OUTPUT)/busy-nap $(OUTPUT)/wake-pair

$(LIBC_SLEEPER): tests/unwind/libc-sleeper.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -Wall $< -o $@

$(OUTPUT)/busy-nap: tests/unwind/busy-nap.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -Wall $< -o $@

$(OUTPUT)/wake-pair: tests/unwind/wake-pair.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -Wall -pthread $< -o $@
