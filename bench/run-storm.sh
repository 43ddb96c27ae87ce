#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Storms of short-lived BPF programs recorded at the same time by
# `bpfrec record` and by `perf record -a -e dummy`: records received,
# programs resolved (name, type and tag; read from each file's perf
# header, bpf_prog_info, the same way for both) and the recorder's CPU
# time (user + sys of the process and its threads).
#
#   bench/run-storm.sh [N ...]      default: 2000 20000; root; builds what it needs
#
# storm -l asks each program's info once while it is loaded (one syscall)
# to know the ids; both recorders see the same programs.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bpfrec_dir=$here/../tools/bpfrec
BPFREC=${BPFREC:-$bpfrec_dir/bpfrec}
STORM=${STORM:-$bpfrec_dir/.output/storm}
PERF=${PERF:-/usr/bin/perf}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(2000 20000)

[ "$(id -u)" -eq 0 ] || { echo "run-storm: needs root" >&2; exit 1; }
make -s -C "$bpfrec_dir" bpfrec .output/storm >&2

tmp=$(mktemp -d /tmp/bpfrec-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# run NAME CMD...: CMD in the background, its CPU seconds into $tmp/NAME.cpu
run() {
	local name=$1
	shift
	/usr/bin/time -f '%U %S' -o "$tmp/$name.time" "$@" >"$tmp/$name.log" 2>&1 &
	echo $! >"$tmp/$name.pid"
}

# the last line: time writes a note first when the status is not 0
cpu_of() {
	tail -n 1 "$tmp/$1.time" | awk '{ printf "%.3f", $1 + $2 }'
}

# ids of the storm's programs that FILE has PROG_LOAD records / prog info for
received() {
	"$PERF" script --show-bpf-events -i "$1" 2>/dev/null |
		awk '/PERF_RECORD_BPF_EVENT type 1,/ { sub(",", "", $NF); print $NF }' |
		sort -u | comm -12 - "$tmp/ids" | wc -l
}

resolved() {
	"$PERF" report --header-only -i "$1" 2>/dev/null |
		sed -n 's/^# bpf_prog_info \([0-9]*\): bpf_prog_[0-9a-f]*_storm.*/\1/p' |
		sort -u | comm -12 - "$tmp/ids" | wc -l
}

declare -A cpu
printf '%-7s %-8s %14s %18s %10s\n' storm recorder received resolved "cpu (s)"
for n in "${sizes[@]}"; do
	run bpfrec "$BPFREC" record -e bpf-events -o "$tmp/bpfrec.data"
	run perf "$PERF" record -a -e dummy -o "$tmp/perf.data"
	# both set up: perf synthesises every task, bpfrec every BPF object
	sleep 3
	start=$(date +%s.%N)
	"$STORM" -n "$n" -l "$tmp/storm.list"
	end=$(date +%s.%N)
	sleep 2
	# /usr/bin/time runs the recorder as its child: signal the recorder
	for r in bpfrec perf; do
		kill -INT "$(pgrep -P "$(cat "$tmp/$r.pid")")"
	done
	wait
	cut -d' ' -f1 "$tmp/storm.list" | sort -u >"$tmp/ids"
	for r in perf bpfrec; do
		rec=$(received "$tmp/$r.data")
		res=$(resolved "$tmp/$r.data")
		cpu[$r]=$(cpu_of $r)
		printf '%-7s %-8s %8s/%-5s %8s (%6.2f%%) %10s\n' "$n" "$r" "$rec" "$n" "$res" \
			"$(echo "100 * $res / $n" | bc -l)" "${cpu[$r]}"
	done
	printf '%-7s %-8s storm took %.3f s; CPU time bpfrec/perf = %.2f\n' "$n" ratio \
		"$(echo "$end - $start" | bc -l)" \
		"$(echo "${cpu[bpfrec]} / (${cpu[perf]} + 0.0005)" | bc -l)"
done
