# SPDX-License-Identifier: GPL-2.0
#
# Unit tests, built with ASan and UBSan from the sources they test
# (included by tools/bpfrec/Makefile):
#   test_perf_data  perf.data writer/reader, script, report, JSON
#   test_hist       stat's run-time histograms in a file: report shows them
#                   as text and JSON, perf stat report skips them, every
#                   malformed record an error
#   test_sample     every sample field, files of many events, perf reading them
#   test_safety     output files created beside their name and renamed;
#                   text escaped for a terminal, tracepoint field names too
#   test_ordered    time-ordered reading, round by round, within a budget
#   test_facts      facts looked up by id in files of many objects; the
#                   writer's fact log alone, on a store in memory
#   test_output     the user's objects' output in script: decoded, or hex
#   test_script     what script shows: full names, KSYMBOL folded, filters,
#                   escapes, width; script's and report's help and errors
#   test_desc       descriptions of object records: each field, longer,
#                   none, cut short; what script and report show of them
#   test_streams    compressed records (perf record -z) and pipe mode, from
#                   memory and from stdin; the writer's pipe mode, readable
#                   after each flush
#   test_evlist     attr.bpf_obj_event found by name in the kernel's BTF,
#                   which is parsed only when it names it
#   test_kallsyms   kernel symbols found in the copy of kallsyms a
#                   recording reads once
#   test_profile    report's profile of a crafted file: folded stacks, BPF
#                   and user symbols, off-CPU totals, the flame graph
#   test_script_samples  samples in script: stacks, BPF images, tracepoint
#                   fields and kallsyms from perf's tracing data, off-CPU;
#                   report's kernel names from those kallsyms
#   test_script_layout  script's columns beside long kernel symbols: the
#                   programs' details keep their room, names cut in the middle
#                   and distinct, whole with --wide
#   test_sample_view  script's BPF images replayed from KSYMBOL records:
#                   the image of an address at the time, only live ones held
#   test_record     ring reading, capture facts merged with records, task
#                   names, synthesis of existing objects, the start-up
#                   window and an event list of two events (root for the
#                   last three)
#
#   test_metrics    serve's metrics: per program and per name, freed programs
#                   kept by name, the bound on names, escapes, OpenMetrics
#   test_prog_extra  a program's bpf_metadata_* printed as perf prints them,
#                   its instructions kept in pieces and read back, crafted
#                   pieces refused; the capture's pieces put together and
#                   hashed, with accumulators reused
#   test_core_btf   the part of a kernel's BTF an object's CO-RE relocations
#                   use: the types it names, what they embed, pointers to void
#
#   make unit-test
#   make mutation-test  each check fails on the bug tests/mutants/ names

PERF_DATA_SRCS := $(wildcard util/perf_data/*.c) util/bpf_obj.c util/hashmap.c util/array.c
# the timeline names user frames through them
USER_SYMS_SRCS := util/intern.c util/proc_maps.c util/dso_syms.c util/user_syms.c
PROFILE_SRCS := $(USER_SYMS_SRCS) util/ksyms.c util/bpf_images.c \
		util/profile.c util/unwind.c util/profile_print.c util/flamegraph.c util/trace_fields.c util/fit.c \
		util/printable.c util/pprof.c $(OUTPUT)/util/pprof.pb-c.c
# builtin-report.c with its lifecycle summary, its profile and its histograms
REPORT_SRCS := builtin-report.c report_profile.c report_hist.c util/stat_hist.c \
	       util/lifecycle.c util/lifecycle_print.c util/out_file.c $(PROFILE_SRCS)
# builtin-script.c with its rows, their text layout and JSON
SCRIPT_SRCS := builtin-script.c util/script_row.c util/script_layout.c util/script_json.c util/bpf_desc.c \
	       util/bpf_disasm.c util/parse_num.c
UNIT_test_perf_data := $(PERF_DATA_SRCS) util/timeline.c util/json.c util/output_decode.c \
		       util/sample_view.c $(SCRIPT_SRCS) input_option.c \
		       cmd_args.c util/debug.c util/fit.c $(REPORT_SRCS)
UNIT_test_sample := $(PERF_DATA_SRCS)
UNIT_test_hist := $(PERF_DATA_SRCS) util/timeline.c util/json.c util/output_decode.c \
		  util/sample_view.c input_option.c cmd_args.c util/debug.c util/fit.c $(REPORT_SRCS)
UNIT_test_safety := $(PERF_DATA_SRCS) util/out_file.c util/printable.c util/trace_fields.c
UNIT_test_ordered := $(PERF_DATA_SRCS)
UNIT_test_facts := $(PERF_DATA_SRCS)
UNIT_test_streams := $(PERF_DATA_SRCS)
UNIT_test_script := $(PERF_DATA_SRCS) util/timeline.c util/json.c util/output_decode.c \
		    util/sample_view.c $(SCRIPT_SRCS) input_option.c \
		    cmd_args.c util/debug.c util/fit.c $(REPORT_SRCS)
UNIT_test_desc := $(UNIT_test_script)
UNIT_test_output := $(PERF_DATA_SRCS) util/timeline.c util/json.c util/output_decode.c \
		    util/printable.c util/sample_view.c util/bpf_images.c util/trace_fields.c $(SCRIPT_SRCS) \
		    input_option.c cmd_args.c util/debug.c util/fit.c util/ksyms.c \
		    $(USER_SYMS_SRCS)
UNIT_test_evlist := $(PERF_DATA_SRCS) util/ring.c util/evlist.c util/vmlinux_btf.c util/file_read.c \
		    util/debug.c
UNIT_test_kallsyms := $(PERF_DATA_SRCS) util/kallsyms_copy.c util/file_read.c
UNIT_test_profile := $(PERF_DATA_SRCS) util/timeline.c util/json.c $(PROFILE_SRCS)
UNIT_test_script_samples := $(PERF_DATA_SRCS) tests/lib/tracing_data.c util/timeline.c util/json.c util/output_decode.c \
			    util/sample_view.c $(SCRIPT_SRCS) \
			    input_option.c cmd_args.c util/debug.c util/fit.c $(REPORT_SRCS)
UNIT_test_script_layout := $(UNIT_test_script_samples)
UNIT_test_sample_view := $(PERF_DATA_SRCS) util/sample_view.c util/bpf_images.c util/trace_fields.c \
			 util/ksyms.c util/printable.c
UNIT_test_record := $(PERF_DATA_SRCS) util/ring.c util/sink.c util/tenant.c util/facts.c util/bpf_desc.c \
		    util/thread_names.c util/synthesize.c util/bpf_resolve.c util/evlist.c \
		    util/recording.c util/capture.c util/core_btf.c util/syscall_cost.c util/linger.c util/vmlinux_btf.c util/file_read.c \
		    util/debug.c util/gone_scan.c util/prog_insns.c util/bpf_meta.c
# serve's metrics over a table of programs built by hand (stat_progs.c for its pruning)
UNIT_test_metrics := util/prog_metrics.c util/stat_progs.c util/capture.c util/core_btf.c util/syscall_cost.c util/bpf_resolve.c \
		     util/vmlinux_btf.c util/file_read.c util/facts.c util/bpf_desc.c util/debug.c \
		     $(PERF_DATA_SRCS)
UNIT_test_prog_extra := $(PERF_DATA_SRCS) util/bpf_meta.c util/bpf_disasm.c util/prog_insns.c util/hashmap.c
UNIT_test_core_btf := $(PERF_DATA_SRCS) util/core_btf.c
UNIT_BINS := $(patsubst %,$(OUTPUT)/unit/%,test_prog_extra test_perf_data test_hist test_sample test_safety test_ordered test_facts test_streams test_script \
	     test_desc \
	     test_record test_output test_evlist test_kallsyms test_profile test_script_samples test_script_layout \
	     test_sample_view test_metrics test_core_btf)
UNIT_CFLAGS := -g -O1 -Wall -Wextra -fno-omit-frame-pointer \
	       -fsanitize=address,undefined -fno-sanitize-recover=all \
	       -I$(OUTPUT) -I../../include/uapi -I.

.PHONY: unit-test

.SECONDEXPANSION:
$(OUTPUT)/unit/%: $$(UNIT_%) tests/unit/%.c tests/unit/unit.c $(HDRS)
	$(Q)mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(UNIT_CFLAGS) $(sort $(UNIT_$*)) tests/unit/unit.c tests/unit/$*.c \
		-lbpf -ldw -lelf -lz -lzstd -ltraceevent -lprotobuf-c -lcrypto -o $@

# the capture's skeleton is generated, like the recorder's
$(OUTPUT)/unit/test_record $(OUTPUT)/unit/test_metrics: $(SKELS)

# every binary runs, and the target fails if one of them did
unit-test: $(UNIT_BINS)
	$(Q)rc=0; for t in $(UNIT_BINS); do echo "# $$t"; $$t || rc=1; done; exit $$rc
