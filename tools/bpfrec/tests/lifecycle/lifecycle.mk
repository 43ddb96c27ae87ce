# SPDX-License-Identifier: GPL-2.0
#
# The lifecycle test's loader and detacher (included by
# tools/bpfrec/Makefile): $(OUTPUT)/cgroup-link, from
# tests/lifecycle/cgroup-link.c.

CGROUP_LINK := $(OUTPUT)/cgroup-link

$(CGROUP_LINK): tests/lifecycle/cgroup-link.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -lbpf -lcrypto -o $@
