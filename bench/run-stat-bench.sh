#!/bin/bash
# What `bpfrec stat --all-progs` costs, on the host (the README's stat figures):
#   - ns added per program run while bpfrec holds BPF_ENABLE_STATS (expected about
#     20 ns: two clock reads), from the kernel's own mean of BPF_PROG_TEST_RUN with a
#     large repeat, stats off vs held by bpfrec;
#   - bpfrec's own CPU watching 1000 running programs for 10 s with -I 1000 --idle
#     (every row printed), beside the peer that lists them every second (bpftool prog
#     show -j), as a ratio.
# Wall time, medians over rounds: the figures move with the host's load.
#   usage: bench/run-stat-bench.sh [--rounds N]
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

rounds=3
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift ;;
	*) echo "usage: $0 [--rounds N]" >&2; exit 2 ;;
	esac
	shift
done

tools=$TOP/tools/bpfrec
work=$CACHE/bench-stat
mkdir -p "$work"
rm -f "$work"/*.out
stage "building bpfrec and the benchmark's programs"
logged "$CACHE/logs/bpfrec-build.$$.log" make -C "$tools" bpfrec .output/stat-prog
gcc -O2 -Wall -Wextra -Werror -o "$work/prog_hold" "$TOP/bench/prog_hold.c" -lbpf

# median: of the numbers on stdin
median() {
	sort -g | awk '{ a[NR] = $1 } END { if (!NR) exit 1; print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# ratio A B: A / B, 2 decimals
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'
}

host() {
	local stat_prog=$tools/.output/stat-prog runs=2000000 r off on bp
	stage "host: --all-progs, ns per run with BPF_ENABLE_STATS held ($rounds rounds of $runs runs)"
	[ "$(cat /proc/sys/kernel/bpf_stats_enabled)" = 0 ] ||
		die "kernel.bpf_stats_enabled is on: every run is counted already"
	for ((r = 1; r <= rounds; r++)); do
		"$stat_prog" -r $runs -k $runs | awk '$1 == "ran" { print "off", $3 }' >>"$work/runs.out"
		"$tools/bpfrec" stat --all-progs --duration 60 >/dev/null &
		bp=$!
		sleep 0.5
		"$stat_prog" -r $runs -k $runs | awk '$1 == "ran" { print "on", $3 }' >>"$work/runs.out"
		kill -INT $bp
		wait $bp
	done
	off=$(awk '$1 == "off" { print $2 }' "$work/runs.out" | median)
	on=$(awk '$1 == "on" { print $2 }' "$work/runs.out" | median)

	stage "host: --all-progs -I 1000 --idle --json for 10 s, 1000 running programs, vs bpftool prog show -j every second"
	"$work/prog_hold" -n 1000 -r 10 >"$work/hold.out" &
	local hold=$!
	while ! grep -q '^held' "$work/hold.out"; do sleep 0.2; done
	for ((r = 1; r <= rounds; r++)); do
		/usr/bin/time -f 'bpfrec %U %S' -a -o "$work/cpu.out" \
			"$tools/bpfrec" stat --all-progs -I 1000 --idle --json --duration 10 >"$work/ap.json"
		grep -c '"name":"bench_held"' "$work/ap.json" | sed 's/^/rows /' >>"$work/cpu.out"
		/usr/bin/time -f 'bpftool %U %S' -a -o "$work/cpu.out" \
			bash -c 'for i in $(seq 10); do bpftool prog show -j >/dev/null; sleep 1; done'
	done
	kill $hold
	wait $hold 2>/dev/null || true
	local bcpu pcpu rows
	bcpu=$(awk '$1 == "bpfrec" { print ($2 + $3) * 10 }' "$work/cpu.out" | median)
	pcpu=$(awk '$1 == "bpftool" { print ($2 + $3) * 10 }' "$work/cpu.out" | median)
	rows=$(awk '$1 == "rows" { print $2 }' "$work/cpu.out" | median)
	echo
	echo "--all-progs (host, wall time, median of $rounds rounds):"
	printf '  ns per program run: stats off %.2f, held by bpfrec %.2f: +%.2f ns per run (expected ~20)\n' \
		"$off" "$on" "$(awk -v a="$on" -v b="$off" 'BEGIN { print a - b }')"
	printf '  CPU (%% of one CPU) watching 1000 running programs for 10 s (%s rows): bpfrec -I 1000 %.2f %%, bpftool prog show -j each second %.2f %%: bpfrec/bpftool %s\n' \
		"$rows" "$bcpu" "$pcpu" "$(ratio "$bcpu" "$pcpu")"
}

host
