# SPDX-License-Identifier: GPL-2.0
#
# The recorder's guest tests (included by tools/bpfrec/Makefile): a static
# BPF workload (raw bpf() syscalls, no libbpf) and the busybox sh test
# script, staged in $(OUTPUT)/guest for the initramfs (/opt/bpfrec/tests/guest).
#
#   make guest-tests

GUEST_OUT := $(OUTPUT)/guest
GUEST_CFLAGS := -I../../include/uapi -g -O2 -Wall -Wextra -static

.PHONY: guest-tests

guest-tests: $(GUEST_OUT)/workload $(GUEST_OUT)/run.sh

$(GUEST_OUT)/workload: tests/guest/workload.c ../../include/uapi/linux/perf_event.h
	$(Q)mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(GUEST_CFLAGS) $< -o $@

$(GUEST_OUT)/run.sh: tests/guest/run.sh
	$(Q)mkdir -p $(dir $@)
	$(call msg,INSTALL,$@)
	$(Q)install -m 0755 $< $@
