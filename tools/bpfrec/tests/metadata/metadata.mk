# SPDX-License-Identifier: GPL-2.0
#
# The metadata test's object and loaders (included by tools/bpfrec/Makefile):
# $(OUTPUT)/meta-load loads tests/metadata/meta.bpf.c's program for 1 ms,
# or while its stdin is open; $(OUTPUT)/meta-overread loads a program whose
# hand-built BTF has a false metadata variable just past its .rodata section.

META_LOAD := $(OUTPUT)/meta-load
META_OVERREAD := $(OUTPUT)/meta-overread
META_OBJ := $(OUTPUT)/tests/metadata/meta.bpf.o

$(META_LOAD): tests/metadata/meta-load.c tests/metadata/prog_hold.h | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -lbpf -o $@

$(META_OVERREAD): tests/metadata/meta-overread.c tests/metadata/prog_hold.h | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -lbpf -o $@
