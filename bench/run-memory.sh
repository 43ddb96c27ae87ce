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

here=$(cd "$(dirname "$0")" && pwd)
bpfrec_dir=$here/../tools/bpfrec
BPFREC=${BPFREC:-$bpfrec_dir/bpfrec}
STORM=${STORM:-$bpfrec_dir/.output/storm}
PERF=${PERF:-/usr/bin/perf}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(0 20000 100000)

[ "$(id -u)" -eq 0 ] || { echo "run-memory: needs root" >&2; exit 1; }
make -s -C "$bpfrec_dir" bpfrec .output/storm >&2

tmp=$(mktemp -d /tmp/bpfrec-bench-mem.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# run NAME CMD...: CMD as the child of a waiter that writes its peak RSS
# (KiB) into $tmp/NAME.rss
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
    print(ru.ru_maxrss, file=f)
' "$tmp/$name.rss" "$@" >"$tmp/$name.log" 2>&1 &
	echo $! >"$tmp/$name.pid"
}

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
	run bpfrec "$BPFREC" record -e bpf-events -o "$tmp/bpfrec.data"
	run perf "$PERF" record -a -e dummy -o "$tmp/perf.data"
	sleep 3
	[ "$n" -gt 0 ] && "$STORM" -n "$n" -p mem
	sleep 2
	for r in bpfrec perf; do
		pgrep -P "$(cat "$tmp/$r.pid")" >"$tmp/$r.rpid"
		rings_of "$(cat "$tmp/$r.rpid")" >"$tmp/$r.rings"
		kill -INT "$(cat "$tmp/$r.rpid")"
	done
	wait
	for r in perf bpfrec; do
		printf '%-7s %-8s %14.1f %12.1f\n' "$n" "$r" "$(mb "$(cat "$tmp/$r.rss")")" \
			"$(mb "$(cat "$tmp/$r.rings")")"
	done
	peak[$n]=$(cat "$tmp/bpfrec.rss")
	printf '%-7s %-8s peak RSS bpfrec/perf = %.2f\n' "$n" ratio \
		"$(echo "$(cat "$tmp/bpfrec.rss") / $(cat "$tmp/perf.rss")" | bc -l)"
done
first=${sizes[0]} last=${sizes[${#sizes[@]} - 1]}
if [ "$last" -gt "$first" ]; then
	printf 'bpfrec: %.0f bytes per program from %s to %s programs\n' \
		"$(echo "(${peak[$last]} - ${peak[$first]}) * 1024 / ($last - $first)" | bc -l)" \
		"$first" "$last"
fi
