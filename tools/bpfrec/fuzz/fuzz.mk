# SPDX-License-Identifier: GPL-2.0
#
# libFuzzer runs under ASan and UBSan (included by tools/bpfrec/Makefile)
# of three entry points: the perf.data reader (fuzz_reader.c), and
# `bpfrec script` and `bpfrec report` end to end (fuzz_cmd.c).  The seed
# corpus holds small files written by bpfrec (recordings, and the crafted
# files of tests/host/craft.c) and by perf 6.1; new inputs go to a
# scratch directory per entry point so the committed corpus stays as it
# is, and so do the inputs that fail (in $(OUTPUT)/fuzz/, not in the tree).
#
#   make fuzz-test                 bounded run: FUZZ_SECONDS (default 60)
#                                  shared by the three entry points
#   make fuzz-test FUZZ_SECONDS=600
#   make fuzz-long FUZZ_RUNS=10000000 FUZZ_ENTRY=script   one long run

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SRCS := $(wildcard util/perf_data/*.c) util/bpf_obj.c util/hashmap.c util/array.c \
	     fuzz/fuzz_reader.c
FUZZ_BIN := $(OUTPUT)/fuzz/fuzz_reader
FUZZ_WORK := $(OUTPUT)/fuzz/corpus
# script and report, as the unit tests build them (tests/unit/unit.mk)
FUZZ_CMD_SRCS = $(sort $(UNIT_test_script))
FUZZ_CMDS := $(OUTPUT)/fuzz/fuzz_script $(OUTPUT)/fuzz/fuzz_report
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	      -I$(OUTPUT) -I../../include/uapi -I.
# each entry point's share of FUZZ_SECONDS, 5 s at least
FUZZ_SHARE = $(shell s=$$(( $(FUZZ_SECONDS) / 3 )); [ $$s -ge 5 ] && echo $$s || echo 5)
# libtraceevent's own leaks on malformed formats (fuzz/lsan.supp)
export LSAN_OPTIONS = suppressions=$(CURDIR)/fuzz/lsan.supp
FUZZ_OPTS = -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -close_fd_mask=3 -artifact_prefix=$(OUTPUT)/fuzz/

.PHONY: fuzz-test fuzz-long

$(FUZZ_BIN): $(FUZZ_SRCS) $(HDRS)
	$(Q)mkdir -p $(dir $@)
	$(call msg,CLANG,$@)
	$(Q)$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -I../../include/uapi -I. \
		$(FUZZ_SRCS) -lbpf -lelf -lz -lzstd -o $@

$(OUTPUT)/fuzz/fuzz_script: fuzz/fuzz_cmd.c $(FUZZ_CMD_SRCS) $(HDRS)
	$(Q)mkdir -p $(dir $@)
	$(call msg,CLANG,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -DFUZZ_SCRIPT fuzz/fuzz_cmd.c $(FUZZ_CMD_SRCS) \
		-lbpf -ldw -lelf -lz -lzstd -ltraceevent -lprotobuf-c -o $@

$(OUTPUT)/fuzz/fuzz_report: fuzz/fuzz_cmd.c $(FUZZ_CMD_SRCS) $(HDRS)
	$(Q)mkdir -p $(dir $@)
	$(call msg,CLANG,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -DFUZZ_REPORT fuzz/fuzz_cmd.c $(FUZZ_CMD_SRCS) \
		-lbpf -ldw -lelf -lz -lzstd -ltraceevent -lprotobuf-c -o $@

# one after the other, each with a corpus of its own: libFuzzer stops at
# the first crash and make at the first failure
fuzz-test: $(FUZZ_BIN) $(FUZZ_CMDS)
	$(Q)mkdir -p $(FUZZ_WORK) $(FUZZ_WORK)-script $(FUZZ_WORK)-report
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SHARE) $(FUZZ_OPTS) $(FUZZ_WORK) fuzz/corpus
	$(OUTPUT)/fuzz/fuzz_script -max_total_time=$(FUZZ_SHARE) $(FUZZ_OPTS) \
		$(FUZZ_WORK)-script fuzz/corpus
	$(OUTPUT)/fuzz/fuzz_report -max_total_time=$(FUZZ_SHARE) $(FUZZ_OPTS) \
		$(FUZZ_WORK)-report fuzz/corpus

# A long run of one entry point (reader, script or report), FUZZ_RUNS inputs.
FUZZ_ENTRY ?= script
FUZZ_RUNS ?= 10000000
fuzz-long: $(FUZZ_BIN) $(FUZZ_CMDS)
	$(Q)mkdir -p $(FUZZ_WORK)-$(FUZZ_ENTRY)
	$(OUTPUT)/fuzz/fuzz_$(FUZZ_ENTRY) -runs=$(FUZZ_RUNS) $(FUZZ_OPTS) \
		$(FUZZ_WORK)-$(FUZZ_ENTRY) fuzz/corpus
