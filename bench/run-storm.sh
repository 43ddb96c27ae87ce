#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Storms of short-lived BPF programs recorded at the same time by
# `bpfrec record` and by `perf record -a -e dummy`: records received,
# programs resolved (name, type and tag; read from each file's perf
# header, bpf_prog_info, the same way for both), the recorder's CPU time
# (user + sys of the process and its threads, from wait4() in
# microseconds: /usr/bin/time rounds to 10 ms, the size of the whole
# small storm) and the unloads done by the recorder (a program it held an
# fd of when its loader closed it: the recorder's pid, not the loader's,
# is then in the PROG_UNLOAD record).  A first round without storm gives
# each recorder's fixed cost: start-up, idle, finalising.
#
#   bench/run-storm.sh [N ...]      default: 2000 20000; root, python3; builds what it needs
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

# run NAME CMD...: CMD in the background as the child of a waiter that
# writes its CPU seconds into $tmp/NAME.cpu
run() {
	local name=$1
	shift
	python3 -c '
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
ru = os.wait4(pid, 0)[2]
with open(sys.argv[1], "w") as f:
    print("%.6f" % (ru.ru_utime + ru.ru_stime), file=f)
' "$tmp/$name.cpu" "$@" >"$tmp/$name.log" 2>&1 &
	echo $! >"$tmp/$name.pid"
}

# stop: the recorders are the waiters' children
stop() {
	local r
	for r in bpfrec perf; do
		pgrep -P "$(cat "$tmp/$r.pid")" >"$tmp/$r.rpid"
		kill -INT "$(cat "$tmp/$r.rpid")"
	done
	wait
}

cpu_of() {
	awk '{ printf "%.4f", $1 }' "$tmp/$1.cpu"
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

# PROG_UNLOAD records of FILE in the name of process PID
unloads_by() {
	"$PERF" script --show-bpf-events -i "$1" 2>/dev/null |
		awk -v pid="$2" '$2 == pid && /PERF_RECORD_BPF_EVENT type 2,/' | wc -l
}

start_both() {
	run bpfrec "$BPFREC" record -e bpf-events -o "$tmp/bpfrec.data"
	run perf "$PERF" record -a -e dummy -o "$tmp/perf.data"
	# both set up: perf synthesises every task, bpfrec every BPF object
	sleep 3
}

ratio() {
	echo "${cpu[bpfrec]} / ${cpu[perf]}" | bc -l
}

declare -A cpu
start_both
sleep 2
stop
for r in perf bpfrec; do
	cpu[$r]=$(cpu_of $r)
	printf '%-7s %-8s %44s\n' idle "$r" "${cpu[$r]}"
done
printf '%-7s %-8s CPU time bpfrec/perf = %.2f\n' idle ratio "$(ratio)"

printf '%-7s %-8s %14s %18s %10s %8s\n' storm recorder received resolved "cpu (s)" unloads
for n in "${sizes[@]}"; do
	start_both
	start=$(date +%s.%N)
	"$STORM" -n "$n" -l "$tmp/storm.list"
	end=$(date +%s.%N)
	sleep 2
	stop
	cut -d' ' -f1 "$tmp/storm.list" | sort -u >"$tmp/ids"
	for r in perf bpfrec; do
		rec=$(received "$tmp/$r.data")
		res=$(resolved "$tmp/$r.data")
		cpu[$r]=$(cpu_of $r)
		printf '%-7s %-8s %8s/%-5s %8s (%6.2f%%) %10s %8s\n' "$n" "$r" "$rec" "$n" "$res" \
			"$(echo "100 * $res / $n" | bc -l)" "${cpu[$r]}" \
			"$(unloads_by "$tmp/$r.data" "$(cat "$tmp/$r.rpid")")"
	done
	printf '%-7s %-8s storm took %.3f s; CPU time bpfrec/perf = %.2f\n' "$n" ratio \
		"$(echo "$end - $start" | bc -l)" "$(ratio)"
done
