# SPDX-License-Identifier: GPL-2.0
#
# Unit tests of the perf.data writer/reader, script, report and JSON,
# built with ASan and UBSan (included by tools/bpfrec/Makefile).
#
#   make unit-test

UNIT_SRCS := perf_data_common.c perf_data_features.c perf_data_write.c \
	     perf_data_read.c perf_data_read_feat.c timeline.c json.c \
	     script.c report.c tests/unit/test_perf_data.c
UNIT_BIN := $(OUTPUT)/unit/test_perf_data
UNIT_CFLAGS := -g -O1 -Wall -Wextra -fno-omit-frame-pointer \
	       -fsanitize=address,undefined -fno-sanitize-recover=all \
	       -I../../include/uapi -I.

.PHONY: unit-test

$(UNIT_BIN): $(UNIT_SRCS) $(wildcard *.h)
	$(Q)mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(UNIT_CFLAGS) $(UNIT_SRCS) -lbpf -lelf -lz -o $@

unit-test: $(UNIT_BIN)
	$(UNIT_BIN)
