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

# the objects of the --object tests (tests/guest/object.sh)
GUEST_OBJECTS := $(GUEST_OUT)/objects/execs.bpf.o $(GUEST_OUT)/objects/latency.bpf.o \
		 $(GUEST_OUT)/objects/trampoline.bpf.o

guest-tests: $(GUEST_OUT)/workload $(GUEST_OUT)/run.sh $(GUEST_OUT)/stat.sh $(GUEST_OUT)/stat-prog \
	     $(GUEST_OUT)/perf-count $(GUEST_OUT)/spinner $(GUEST_OUT)/object.sh $(GUEST_OUT)/capture.sh \
	     $(GUEST_OBJECTS)

$(GUEST_OUT)/workload: tests/guest/workload.c ../../include/uapi/linux/perf_event.h
	$(Q)mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(GUEST_CFLAGS) $< -o $@

$(GUEST_OUT)/run.sh $(GUEST_OUT)/stat.sh $(GUEST_OUT)/object.sh $(GUEST_OUT)/capture.sh: \
		$(GUEST_OUT)/%: tests/guest/%
	$(Q)mkdir -p $(dir $@)
	$(call msg,INSTALL,$@)
	$(Q)install -m 0755 $< $@

# the stat tests' programs (tests/stat/stat.mk); libbpf goes along
$(GUEST_OUT)/stat-prog $(GUEST_OUT)/perf-count $(GUEST_OUT)/spinner: $(GUEST_OUT)/%: $(OUTPUT)/%
	$(Q)mkdir -p $(dir $@)
	$(Q)install -m 0755 $< $@

$(GUEST_OUT)/objects/%.bpf.o: $(OUTPUT)/examples/%.bpf.o
	$(Q)mkdir -p $(dir $@)
	$(Q)install -m 0644 $< $@

$(GUEST_OUT)/objects/%.bpf.o: $(OUTPUT)/tests/host/objects/%.bpf.o
	$(Q)mkdir -p $(dir $@)
	$(Q)install -m 0644 $< $@
