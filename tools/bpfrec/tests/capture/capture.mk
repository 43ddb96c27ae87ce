# SPDX-License-Identifier: GPL-2.0
#
# The capture test's checker (included by tools/bpfrec/Makefile):
# $(OUTPUT)/core-check, from tests/capture/core-check.c, which loads the
# capture's syscall-path programs relocated against another kernel's BTF.

CORE_CHECK := $(OUTPUT)/core-check

$(CORE_CHECK): tests/capture/core-check.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -lbpf -o $@
