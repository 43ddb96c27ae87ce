# SPDX-License-Identifier: GPL-2.0
#
# The capture test's checker (included by tools/bpfrec/Makefile):
# $(OUTPUT)/core-check, from tests/capture/core-check.c, which loads the
# capture's syscall-path programs relocated against another kernel's BTF,
# whole and in the part the recorder uses.

CORE_CHECK := $(OUTPUT)/core-check

$(CORE_CHECK): tests/capture/core-check.c util/core_btf.c util/core_btf.h | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) -lbpf -o $@
