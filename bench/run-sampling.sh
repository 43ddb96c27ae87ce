#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# CPU sampling with call stacks, `bpfrec record -e cpu-clock -F HZ -g` and
# `perf record -e cpu-clock -F HZ -g`, on the same fixed workload in the
# same run, one after the other, at each frequency:
#   - the workload's slowdown: its CPU seconds for a fixed number of loops
#     (sample-work loops N reports them) over the same without a recorder;
#   - the recorder's CPU seconds: user + sys of the recorder and its
#     threads from wait4(), minus the workload's own (a recorder waits for
#     its workload, whose time wait4() adds to the recorder's);
#   - the samples in each file, read by perf script.
# bpfrec runs twice: as users run it, and with --capture=off, which shows
# what its in-kernel capture of BPF objects (which perf has not) costs.
# Both then record with --call-graph dwarf (8 KiB of user stack a sample,
# unwound when the report reads it) instead of -g: what the copy costs
# against frame pointers alone, bpfrec beside perf.
# Each configuration runs ROUNDS times (default 3); the medians are shown.
#
#   bench/run-sampling.sh [HZ ...]     default: 99 999; root, python3, perf
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bpfrec_dir=$here/../tools/bpfrec
BPFREC=${BPFREC:-$bpfrec_dir/bpfrec}
WORK=${WORK:-$bpfrec_dir/.output/sample-work}
PERF=${PERF:-/usr/bin/perf}
LOOPS=${LOOPS:-1500}
ROUNDS=${ROUNDS:-3}
freqs=("$@")
[ ${#freqs[@]} -gt 0 ] || freqs=(99 999)

[ "$(id -u)" -eq 0 ] || { echo "run-sampling: needs root" >&2; exit 1; }
[ -x "$PERF" ] || { echo "run-sampling: needs $PERF" >&2; exit 1; }
make -s -C "$bpfrec_dir" bpfrec .output/sample-work >&2

tmp=$(mktemp -d /tmp/bpfrec-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# measure CMD...: "WORKLOAD_CPU TOTAL_CPU" of CMD (whose workload prints
# "elapsed S cpu S"), CPU seconds from wait4()
measure() {
	python3 -c '
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
out = p.stdout.read().decode()
ru = os.wait4(p.pid, 0)[2]
work = [l.split()[3] for l in out.splitlines() if l.startswith("elapsed ")][0]
print(work, "%.6f" % (ru.ru_utime + ru.ru_stime))
' "$@"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '| HZ | recorder | workload CPU (s) | slowdown | recorder CPU (s) | samples | CPU bpfrec/perf |\n'
printf '|---|---|---|---|---|---|---|\n'
for hz in "${freqs[@]}"; do
	for r in $(seq "$ROUNDS"); do
		measure "$WORK" loops "$LOOPS" >>"$tmp/none.$hz"
		measure "$BPFREC" record -e cpu-clock -F "$hz" -g -o "$tmp/b.data" -- \
			"$WORK" loops "$LOOPS" >>"$tmp/bpfrec.$hz"
		"$PERF" script -i "$tmp/b.data" -F period 2>/dev/null | wc -l >>"$tmp/bpfrec.$hz.n"
		measure "$PERF" record -q -e cpu-clock -F "$hz" -g -o "$tmp/p.data" -- \
			"$WORK" loops "$LOOPS" >>"$tmp/perf.$hz"
		"$PERF" script -i "$tmp/p.data" -F period 2>/dev/null | wc -l >>"$tmp/perf.$hz.n"
		measure "$BPFREC" record --capture=off -e cpu-clock -F "$hz" -g -o "$tmp/n.data" -- \
			"$WORK" loops "$LOOPS" >>"$tmp/nocap.$hz"
		"$PERF" script -i "$tmp/n.data" -F period 2>/dev/null | wc -l >>"$tmp/nocap.$hz.n"
		measure "$BPFREC" record -e cpu-clock -F "$hz" --call-graph dwarf -o "$tmp/bd.data" -- \
			"$WORK" loops "$LOOPS" >>"$tmp/bdwarf.$hz"
		"$PERF" script -i "$tmp/bd.data" -F period 2>/dev/null | wc -l >>"$tmp/bdwarf.$hz.n"
		measure "$PERF" record -q -e cpu-clock -F "$hz" --call-graph dwarf -o "$tmp/pd.data" -- \
			"$WORK" loops "$LOOPS" >>"$tmp/pdwarf.$hz"
		"$PERF" script -i "$tmp/pd.data" -F period 2>/dev/null | wc -l >>"$tmp/pdwarf.$hz.n"
	done
	base=$(cut -d' ' -f1 "$tmp/none.$hz" | median)
	printf '| %s | none | %s | | | | |\n' "$hz" "$base"
	for rec in perf bpfrec nocap pdwarf bdwarf; do
		work=$(cut -d' ' -f1 "$tmp/$rec.$hz" | median)
		cpu=$(awk '{ print $2 - $1 }' "$tmp/$rec.$hz" | median)
		echo "$cpu" >"$tmp/$rec.$hz.cpu"
		ratio=
		peer=perf
		[ $rec = bdwarf ] && peer=pdwarf
		[ $rec != perf ] && [ $rec != pdwarf ] && ratio=$(awk -v b="$cpu" -v p="$(cat "$tmp/$peer.$hz.cpu")" \
			'BEGIN { r = 0; if (p > 0) r = b / p; printf "%.2f", r }')
		name=$rec
		[ $rec = nocap ] && name="bpfrec --capture=off"
		[ $rec = pdwarf ] && name="perf --call-graph dwarf"
		[ $rec = bdwarf ] && name="bpfrec --call-graph dwarf"
		printf '| %s | %s | %s | %.3f | %.3f | %s | %s |\n' "$hz" "$name" "$work" \
			"$(awk -v w="$work" -v b="$base" 'BEGIN { print w / b }')" "$cpu" \
			"$(median <"$tmp/$rec.$hz.n")" "$ratio"
	done
done

# what the unwinding costs the reader: the last files of the last frequency
secs() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -n 1; }
printf '\nreading the last files (s): bpfrec report --folded: -g %s, --call-graph dwarf %s; perf report --stdio: -g %s, --call-graph dwarf %s\n' \
	"$(secs "$BPFREC" report -i "$tmp/b.data" --folded)" \
	"$(secs "$BPFREC" report -i "$tmp/bd.data" --folded)" \
	"$(secs "$PERF" report -i "$tmp/p.data" --stdio)" \
	"$(secs "$PERF" report -i "$tmp/pd.data" --stdio)"
