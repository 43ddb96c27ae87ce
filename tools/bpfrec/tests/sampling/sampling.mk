# SPDX-License-Identifier: GPL-2.0
#
# The workload of the sampling tests and benchmarks (included by
# tools/bpfrec/Makefile): $(OUTPUT)/sample-work, with frame pointers so
# that -g stacks walk through it.

SAMPLE_WORK := $(OUTPUT)/sample-work

$(SAMPLE_WORK): tests/sampling/sample-work.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -g -O2 -fno-omit-frame-pointer -Wall -Wextra $< -o $@
