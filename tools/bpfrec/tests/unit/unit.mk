# SPDX-License-Identifier: GPL-2.0
#
# Unit tests of the perf.data writer/reader, script, report and JSON,
# built with ASan and UBSan (included by tools/bpfrec/Makefile).
#
#   make unit-test

PERF_DATA_SRCS := $(wildcard util/perf_data/*.c) util/bpf_obj.c util/hashmap.c
UNIT_SRCS := $(PERF_DATA_SRCS) util/timeline.c util/json.c \
	     builtin-script.c builtin-report.c input_option.c \
	     tests/unit/test_perf_data.c
UNIT_BIN := $(OUTPUT)/unit/test_perf_data
UNIT_CFLAGS := -g -O1 -Wall -Wextra -fno-omit-frame-pointer \
	       -fsanitize=address,undefined -fno-sanitize-recover=all \
	       -I../../include/uapi -I.

.PHONY: unit-test

$(UNIT_BIN): $(UNIT_SRCS) $(HDRS)
	$(Q)mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(UNIT_CFLAGS) $(UNIT_SRCS) -lbpf -lelf -lz -o $@

unit-test: $(UNIT_BIN)
	$(UNIT_BIN)
