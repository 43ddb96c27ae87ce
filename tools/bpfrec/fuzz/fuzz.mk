# SPDX-License-Identifier: GPL-2.0
#
# libFuzzer run of the perf.data reader under ASan and UBSan (included by
# tools/bpfrec/Makefile).  The seed corpus holds small files written by
# bpfrec's writer and by perf 6.1; new inputs go to a scratch directory
# so the committed corpus stays as it is, and so do the inputs that fail
# (in $(OUTPUT)/fuzz/, not in the tree).
#
#   make fuzz-test                 bounded run (FUZZ_SECONDS, default 60)
#   make fuzz-test FUZZ_SECONDS=600

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SRCS := $(wildcard util/perf_data/*.c) util/bpf_obj.c util/hashmap.c util/array.c \
	     fuzz/fuzz_reader.c
FUZZ_BIN := $(OUTPUT)/fuzz/fuzz_reader
FUZZ_WORK := $(OUTPUT)/fuzz/corpus

.PHONY: fuzz-test

$(FUZZ_BIN): $(FUZZ_SRCS) $(HDRS)
	$(Q)mkdir -p $(dir $@)
	$(call msg,CLANG,$@)
	$(Q)$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -I../../include/uapi -I. \
		$(FUZZ_SRCS) -lbpf -lelf -lz -lzstd -o $@

fuzz-test: $(FUZZ_BIN)
	$(Q)mkdir -p $(FUZZ_WORK)
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix=$(OUTPUT)/fuzz/ $(FUZZ_WORK) fuzz/corpus
