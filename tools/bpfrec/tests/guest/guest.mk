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

# Debian's libbpf-tools, run in the guest as users run them (tests/guest/libbpf-tools.sh);
# the initramfs takes their libraries with them.  A host without them skips that test.
GUEST_LIBBPF_TOOLS := $(patsubst /usr/sbin/%,$(GUEST_OUT)/libbpf-tools/%,\
			$(wildcard /usr/sbin/execsnoop /usr/sbin/opensnoop))

# the objects of the --object tests (tests/guest/object.sh)
GUEST_OBJECTS := $(GUEST_OUT)/objects/execs.bpf.o $(GUEST_OUT)/objects/latency.bpf.o \
		 $(GUEST_OUT)/objects/trampoline.bpf.o $(GUEST_OUT)/objects/meta.bpf.o

guest-tests: $(GUEST_OUT)/workload $(GUEST_OUT)/run.sh $(GUEST_OUT)/stat.sh $(GUEST_OUT)/hist.sh \
	     $(GUEST_OUT)/stat-prog $(GUEST_OUT)/meta-load \
	     $(GUEST_OUT)/perf-count $(GUEST_OUT)/spinner $(GUEST_OUT)/object.sh $(GUEST_OUT)/capture.sh \
	     $(GUEST_OUT)/sampling.sh $(GUEST_OUT)/describe.sh $(GUEST_OUT)/creator.sh $(GUEST_OUT)/perf.sh $(GUEST_OUT)/libbpf-tools.sh \
	     $(GUEST_LIBBPF_TOOLS) $(GUEST_OUT)/profile.sh $(GUEST_OUT)/counts.sh $(GUEST_OUT)/sleeper $(GUEST_OUT)/sleeper.syms \
	     $(GUEST_OBJECTS)

$(GUEST_OUT)/workload: tests/guest/workload.c ../../include/uapi/linux/perf_event.h
	$(Q)mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(GUEST_CFLAGS) $< -o $@

$(GUEST_OUT)/run.sh $(GUEST_OUT)/stat.sh $(GUEST_OUT)/hist.sh $(GUEST_OUT)/object.sh $(GUEST_OUT)/capture.sh \
$(GUEST_OUT)/sampling.sh $(GUEST_OUT)/describe.sh $(GUEST_OUT)/creator.sh $(GUEST_OUT)/perf.sh \
$(GUEST_OUT)/libbpf-tools.sh: \
		$(GUEST_OUT)/%: tests/guest/%
	$(Q)mkdir -p $(dir $@)
	$(call msg,INSTALL,$@)
	$(Q)install -m 0755 $< $@

$(GUEST_LIBBPF_TOOLS): $(GUEST_OUT)/libbpf-tools/%: /usr/sbin/%
	$(Q)mkdir -p $(dir $@)
	$(call msg,INSTALL,$@)
	$(Q)install -m 0755 $< $@

# the checks the host tests share (tests/lib/): profiles, counts
$(GUEST_OUT)/profile.sh $(GUEST_OUT)/counts.sh: $(GUEST_OUT)/%: tests/lib/%
	$(Q)mkdir -p $(dir $@)
	$(Q)install -m 0644 $< $@

# where the sleeper sleeps, "START SIZE" in hex: the guest has no nm
$(GUEST_OUT)/sleeper.syms: $(OFFCPU_SLEEPER)
	$(Q)mkdir -p $(dir $@)
	$(call msg,NM,$@)
	$(Q)nm -S $< | awk '$$4 == "sleep_in_known_place" { print $$1, $$2 }' >$@
	$(Q)test -s $@

# the stat tests' programs (tests/stat/stat.mk), libbpf going along, the
# off-CPU tests' sleeper (tests/offcpu/offcpu.mk, static) and the metadata
# test's loader (tests/metadata/metadata.mk), for the demo (make run)
$(GUEST_OUT)/stat-prog $(GUEST_OUT)/perf-count $(GUEST_OUT)/spinner $(GUEST_OUT)/sleeper \
$(GUEST_OUT)/meta-load: \
		$(GUEST_OUT)/%: $(OUTPUT)/%
	$(Q)mkdir -p $(dir $@)
	$(Q)install -m 0755 $< $@

$(GUEST_OUT)/objects/%.bpf.o: $(OUTPUT)/examples/%.bpf.o
	$(Q)mkdir -p $(dir $@)
	$(Q)install -m 0644 $< $@

$(GUEST_OUT)/objects/%.bpf.o: $(OUTPUT)/tests/host/objects/%.bpf.o
	$(Q)mkdir -p $(dir $@)
	$(Q)install -m 0644 $< $@

$(GUEST_OUT)/objects/meta.bpf.o: $(META_OBJ)
	$(Q)mkdir -p $(dir $@)
	$(Q)install -m 0644 $< $@
