# SPDX-License-Identifier: GPL-2.0
#
# The metadata test's object and loader (included by tools/bpfrec/Makefile):
# $(OUTPUT)/meta-load loads tests/metadata/meta.bpf.c's program for 1 ms,
# or while its stdin is open.

META_LOAD := $(OUTPUT)/meta-load
META_OBJ := $(OUTPUT)/tests/metadata/meta.bpf.o

$(META_LOAD): tests/metadata/meta-load.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -lbpf -o $@
