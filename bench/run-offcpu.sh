#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What off-CPU profiling costs a context-switch-heavy workload: the
# round trips per second of bench/pingpong.c (two threads over pipes)
# with no profiler, with `bpfrec record --off-cpu` and with libbpf-tools'
# offcputime, both system-wide, in the same run, ROUNDS times each in
# turn; prints the medians and the ratios to the unprofiled rate.
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

# under PROFILER...: the rate while it runs (started first, given 1 s to attach)
under() {
	local pid
	"$@" >/dev/null 2>&1 &
	pid=$!
	sleep 1
	"$tmp/pingpong" "$sec" >>"$tmp/$name"
	kill -INT $pid
	wait $pid 2>/dev/null || true
}

for r in $(seq "$rounds"); do
	name=none; "$tmp/pingpong" "$sec" >>"$tmp/none"
	name=bpfrec; under "$BPFREC" record --off-cpu -o "$tmp/off.data"
	name=offcputime; under offcputime
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
base=$(median "$tmp/none")
for n in none bpfrec offcputime; do
	m=$(median "$tmp/$n")
	printf "%-12s %10d round trips/s  %.3f of unprofiled\n" "$n" "$m" "$(echo "$m / $base" | bc -l)"
done
