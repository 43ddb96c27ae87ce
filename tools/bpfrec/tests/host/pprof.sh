#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of `bpfrec report --pprof`: run as root on the host kernel.
#
#   BPFREC=path/to/bpfrec STAT_PROG=path/to/stat-prog tests/host/pprof.sh
#
# bpfrec records cpu-clock samples with stacks while stat-prog (tests/stat/)
# keeps its BPF program busy (it adds up 200 numbers per run) and unloads
# it at exit.  The report's --pprof file is read by Debian's go tool pprof
# (golang-go): -top must name the program, after its unload, with the share
# bpfrec report gives it; -raw must show the kernel's and the C library's
# mappings.  Skipped when go is missing.
# Last line: "pprof: N passed, N failed, N skipped"; exit 1 if anything failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
STAT_PROG=${STAT_PROG:-$here/../../.output/stat-prog}

. "$here/lib.sh"

host_setup pprof "$BPFREC" "$STAT_PROG"
trap 'rm -rf "$tmp"' EXIT

see="(see bpfrec report --help)"
one_line "--pprof with --wall exits 2" 2 \
	"bpfrec report: --pprof writes CPU or off-CPU profiles, not --wall $see" \
	report --wall --pprof "$tmp/x.pb.gz"

"$BPFREC" record -e cpu-clock -g -o "$tmp/prof.data" -- \
	"$STAT_PROG" -r 2000000 -k 1000000 -w 200 >"$tmp/prog.out" 2>"$tmp/rec.err"
id=$(awk '$1 == "id" { print $2 }' "$tmp/prog.out")
# another tool that walks every program may hold it for a moment after its loader exited
result "the program is unloaded before the report" \
	"$([ -n "$id" ] || echo "no program: $(tail -2 "$tmp/rec.err")"
	   [ -n "$id" ] && ! wait_until 30 unloaded "$id" && echo "prog $id still loaded after 30 s")"

"$BPFREC" report -i "$tmp/prof.data" --pprof "$tmp/cpu.pb.gz" >"$tmp/report.out" 2>"$tmp/report.err"
rc=$?
result "report --pprof: exit 0, one line saying where" \
	"$([ $rc -eq 0 ] && grep -qx "bpfrec report: pprof profile of [0-9]* cpu-clock samples written to $tmp/cpu.pb.gz" "$tmp/report.out" ||
		echo "exit $rc: $(cat "$tmp/report.out" "$tmp/report.err")")"
result "the file is gzip" "$(gzip -t "$tmp/cpu.pb.gz" 2>&1)"

if ! command -v go >/dev/null; then
	skip "go tool pprof reads it" "go missing (scripts/deps.sh: golang-go)"
	echo "pprof: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit
fi

# go keeps its cache and pprof its downloads under HOME
export HOME=$tmp GOCACHE=$tmp/gocache
go tool pprof -top "$tmp/cpu.pb.gz" >"$tmp/top.out" 2>"$tmp/top.err"
rc=$?
# "flat flat% sum% cum cum% NAME": the program's flat share, and report's
theirs=$(awk '$6 == "stat_target_with_a_long_name" { sub(/%/, "", $2); print $2 }' "$tmp/top.out")
"$BPFREC" report -i "$tmp/prof.data" --sort sym >"$tmp/table.out" 2>&1
mine=$(awk '$3 == "stat_target_with_a_long_name" { sub(/%/, "", $1); print $1 }' "$tmp/table.out")
result "go tool pprof -top: exit 0, the BPF program named after its unload" \
	"$([ $rc -eq 0 ] && [ -n "$theirs" ] || echo "exit $rc: $(head -12 "$tmp/top.out" "$tmp/top.err")")"
result "go tool pprof -top: its share is bpfrec report's ($mine %)" \
	"$(awk -v a="${theirs:-x}" -v b="${mine:-y}" 'BEGIN { if (a == "x" || b == "y" || a - b > 0.01 || b - a > 0.01) print "pprof " a " %, report " b " %" }')"
result "its share is most of the samples (the program kept busy)" \
	"$(awk -v a="${mine:-0}" 'BEGIN { if (a < 50) print a " %" }')"
go tool pprof -raw "$tmp/cpu.pb.gz" >"$tmp/raw.out" 2>&1
result "go tool pprof -raw: the kernel's and libc's mappings, the BPF frames' [bpf]" \
	"$(for m in '\[kernel.kallsyms\]' 'libc\.so' '\[bpf\]'; do
		sed -n '/^Mappings/,$p' "$tmp/raw.out" | grep -q "$m" || echo "no mapping $m"
	done)"
go tool pprof -tagfocus=comm=stat-prog -top "$tmp/cpu.pb.gz" >"$tmp/tag.out" 2>&1
result "go tool pprof: the samples' comm label" \
	"$(grep -q ' stat_target_with_a_long_name$' "$tmp/tag.out" || head -8 "$tmp/tag.out")"

echo "pprof: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
