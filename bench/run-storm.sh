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

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(2000 20000)
. "$(dirname "$0")/lib.sh"

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


ratio() {
	echo "${cpu[bpfrec]} / ${cpu[perf]}" | bc -l
}

declare -A cpu
recorders_start
sleep 2
recorders_stop
for r in perf bpfrec; do
	cpu[$r]=$(cpu_of $r)
	printf '%-7s %-8s %44s\n' idle "$r" "${cpu[$r]}"
done
printf '%-7s %-8s CPU time bpfrec/perf = %.2f\n' idle ratio "$(ratio)"

printf '%-7s %-8s %14s %18s %10s %8s\n' storm recorder received resolved "cpu (s)" unloads
for n in "${sizes[@]}"; do
	recorders_start
	start=$(date +%s.%N)
	"$STORM" -n "$n" -l "$tmp/storm.list"
	end=$(date +%s.%N)
	sleep 2
	recorders_stop
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
