#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory of the recorders during storms of short-lived BPF programs:
# `bpfrec record` and `perf record -a -e dummy` record the same storm at
# the same time.  Peak RSS is the recorder's ru_maxrss (wait4(), threads
# included).  Of bpfrec's, "rings" is what its mapped ring buffers hold
# resident at the end (the capture's BPF ring buffer is mapped twice by
# design, and its pages are the kernel's, not the heap): the rest grows
# with the objects.  Bytes per object is the growth of the peak from the
# smallest storm to the largest, divided by the programs in between.
#
#   bench/run-memory.sh [N ...]     default: 0 20000 100000; root, python3
set -eu

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(0 20000 100000)
. "$(dirname "$0")/lib.sh"

# KiB resident in PID's mappings of BPF maps and perf rings
rings_of() {
	awk '/^[0-9a-f]+-/ { ring = $6 ~ /bpf-map|perf_event/ }
	     /^Rss:/ && ring { kb += $2 } END { print kb + 0 }' "/proc/$1/smaps"
}

mb() {
	echo "$1 / 1024" | bc -l
}

printf '%-7s %-8s %14s %12s\n' storm recorder "peak RSS (MB)" "rings (MB)"
declare -A peak
for n in "${sizes[@]}"; do
	recorders_start
	[ "$n" -gt 0 ] && "$STORM" -n "$n" -p mem
	sleep 2
	for r in bpfrec perf; do
		rings_of "$(recorder_pid $r)" >"$tmp/$r.rings"
	done
	recorders_stop
	for r in perf bpfrec; do
		printf '%-7s %-8s %14.1f %12.1f\n' "$n" "$r" "$(mb "$(rss_of $r)")" \
			"$(mb "$(cat "$tmp/$r.rings")")"
	done
	peak[$n]=$(rss_of bpfrec)
	printf '%-7s %-8s peak RSS bpfrec/perf = %.2f\n' "$n" ratio \
		"$(echo "$(rss_of bpfrec) / $(rss_of perf)" | bc -l)"
done
first=${sizes[0]} last=${sizes[${#sizes[@]} - 1]}
if [ "$last" -gt "$first" ]; then
	printf 'bpfrec: %.0f bytes per program from %s to %s programs\n' \
		"$(echo "(${peak[$last]} - ${peak[$first]}) * 1024 / ($last - $first)" | bc -l)" \
		"$first" "$last"
fi
