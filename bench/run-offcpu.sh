#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What off-CPU profiling costs a context-switch-heavy workload: the
# round trips per second of bench/pingpong.c (two threads over pipes,
# pinned to CPU 0: each round trip is two switches between them, with no
# idle CPU to wake, whose cost varies more than what is measured)
# with no profiler and with each profiler below, all system-wide, in the
# same run, ROUNDS times each in turn (interleaved, so that the machine's
# load hits them alike); prints the medians and the ratios to the
# unprofiled rate:
#   bpfrec record --off-cpu                   frame pointers
#   bpfrec record --off-cpu --call-graph dwarf   + the copy of the user stack
#   bpfrec record --off-cpu --wakers          + the waker at every wakeup
#   bpfrec record --off-cpu --wakers --call-graph dwarf
#   offcputime (libbpf-tools)                 the peer without wakers
#   offwaketime (bpfcc-tools)                 the peer with wakers, if it runs
#   perf record --off-cpu ($PERF_OFFCPU)      if given: a perf with BPF skeletons
#
#   bench/run-offcpu.sh [ROUNDS] [SEC]      (root; make -C tools/bpfrec first)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
BPFREC=${BPFREC:-$here/../tools/bpfrec/bpfrec}
rounds=${1:-5} sec=${2:-2}
tmp=$(mktemp -d /tmp/bpfrec-bench-offcpu.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -pthread "$here/pingpong.c" -o "$tmp/pingpong"
command -v offcputime >/dev/null || { echo "no offcputime: scripts/deps.sh installs libbpf-tools" >&2; exit 1; }

# under PROFILER...: the rate while it runs (started first, given 1 s to
# attach; a BCC tool compiles first: until it says it is tracing, 60 s at most)
under() {
	local pid i
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	pid=$!
	sleep 1
	case $name in
	offwaketime)
		for i in $(seq 60); do
			grep -q Tracing "$tmp/$name.out" && break
			sleep 1
		done ;;
	esac
	if ! kill -0 $pid 2>/dev/null; then
		echo "$name did not run: $(tail -n 1 "$tmp/$name.err")" >&2
		return
	fi
	taskset -c 0 "$tmp/pingpong" "$sec" >>"$tmp/$name"
	kill -INT $pid
	wait $pid 2>/dev/null || true
}

names=(none bpfrec bpfrec-dwarf bpfrec-wakers bpfrec-wakers-dwarf offcputime)
offwaketime=$(command -v offwaketime-bpfcc || command -v offwaketime || true)
[ -n "$offwaketime" ] && names+=(offwaketime)
[ -n "${PERF_OFFCPU:-}" ] && names+=(perf)
for r in $(seq "$rounds"); do
	for name in "${names[@]}"; do
		case $name in
		none) taskset -c 0 "$tmp/pingpong" "$sec" >>"$tmp/none" ;;
		bpfrec) under "$BPFREC" record --off-cpu -o "$tmp/off.data" ;;
		bpfrec-dwarf) under "$BPFREC" record --off-cpu --call-graph dwarf -o "$tmp/off.data" ;;
		bpfrec-wakers) under "$BPFREC" record --off-cpu --wakers -o "$tmp/off.data" ;;
		bpfrec-wakers-dwarf)
			under "$BPFREC" record --off-cpu --wakers --call-graph dwarf -o "$tmp/off.data" ;;
		offcputime) under offcputime ;;
		offwaketime) under "$offwaketime" ;;
		perf) under "$PERF_OFFCPU" record --off-cpu -a -o "$tmp/perf.data" ;;
		esac
	done
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
base=$(median "$tmp/none")
for n in "${names[@]}"; do
	[ -s "$tmp/$n" ] || { printf "%-20s did not run\n" "$n"; continue; }
	m=$(median "$tmp/$n")
	printf "%-20s %10d round trips/s  %.3f of unprofiled\n" "$n" "$m" "$(echo "$m / $base" | bc -l)"
done
