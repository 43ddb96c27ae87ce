#!/bin/bash
# What `bpfrec stat` costs, as ratios (bench/README.md's stat table):
#   --all-progs (host): ns added per program run while bpfrec holds BPF_ENABLE_STATS
#     (expected about 20 ns: two clock reads), and bpfrec's own CPU watching 1000
#     running programs with -I 1000, beside the peer that lists them every second
#     (bpftool prog show -j).
#   stat -b (guest: the host refuses trampolines): ns added per target run
#     (BPF_PROG_TEST_RUN with a large repeat), profiler on vs off, against bare
#     fentry+fexit programs that do nothing, the floor. Goal: <= 1.2x the floor.
#     Both ways of -b -e cpu-clock: the run time stats (the default) and
#     --trampoline; what the stats cost a run is what every BPF program on the
#     machine pays while they are on.
#   --bpf-counters (guest): perf events used, context switch cost and the sessions'
#     own CPU with 1, 4 and 16 sessions counting cpu-clock on every CPU, vs the same
#     number of plain sessions (bench/../tools/bpfrec/tests/stat/perf-count.c: one
#     perf event per CPU each). Goal: one perf event per CPU at any N, each session
#     beyond the first cheaper than a plain one.
# All figures are wall time, medians over rounds; the guest's are wall ns under QEMU
# TCG (scripts/vm.sh, 2 vCPUs), so only their ratios, measured side by side in the
# same boot, mean anything. The guest half took 2 to 4 minutes for 3 to 5 rounds.
# --icount boots the guest with QEMU's -icount (scripts/vm.sh --icount): its clock then
# advances one ns per instruction, so the guest's ns are instruction counts, which do not
# move with the host's load (a TCG guest's wall ns vary by up to ten times on a busy host).
#   usage: bench/run-stat-bench.sh [--host | --guest] [--rounds N] [--icount]
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

what=both
rounds=3
icount=()
clock="wall ns under TCG"
while [ $# -gt 0 ]; do
	case "$1" in
	--host) what=host ;;
	--guest) what=guest ;;
	--rounds) rounds=$2; shift ;;
	--icount) icount=(--icount); clock="virtual ns under -icount: instructions" ;;
	*) echo "usage: $0 [--host | --guest] [--rounds N] [--icount]" >&2; exit 2 ;;
	esac
	shift
done

tools=$TOP/tools/bpfrec
work=$CACHE/bench-stat
mkdir -p "$work"
rm -f "$work"/*.out
stage "building bpfrec and the benchmark's programs"
logged "$CACHE/logs/bpfrec-build.$$.log" make -C "$tools" bpfrec .output/stat-prog .output/perf-count
gcc -O2 -Wall -Wextra -Werror -pthread -o "$work/pingpong" "$TOP/bench/pingpong.c"
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

guest() {
	local g=$work/guest
	stage "guest: stat -b and --bpf-counters ($rounds rounds, QEMU TCG)"
	rm -rf "$g"
	mkdir -p "$g"
	cp "$tools/bpfrec" "$tools/.output/stat-prog" "$tools/.output/perf-count" "$work/pingpong" \
		"$TOP/bench/stat-guest.sh" "$g/"
	"$TOP/scripts/vm.sh" "${icount[@]}" --quiet --timeout 1500 --log "$work/console.log" --add "$g/.:/opt/bpfrec/bin" \
		-- sh /opt/bpfrec/bin/stat-guest.sh "$rounds" 1000000 2 >"$work/guest.out" ||
		{ tail -n 30 "$work/guest.out" >&2; die "the guest benchmark failed (console: $work/console.log)"; }
	grep '^bench-' "$work/guest.out" | sed 's/^/  /'

	# b NAME: median over the rounds of bench-b's NAME
	b() {
		sed -n "s/^bench-b .* $1=\\([0-9.]*\\).*/\\1/p" "$work/guest.out" | median
	}
	local off floor how on
	off=$(b off)
	floor=$(b floor)
	echo
	echo "stat -b -e cpu-clock (guest, $clock, median of $rounds rounds):"
	printf '  ns per target run: bare %.1f, floor (empty fentry+fexit) %.1f (+%.1f)\n' \
		"$off" "$floor" "$(awk -v a="$floor" -v b="$off" 'BEGIN { print a - b }')"
	for how in stats tramp hist; do
		on=$(b $how)
		printf '  %-34s %.1f ns per run, +%.1f: %s x the floor (goal <= 1.2)\n' \
			"$(case $how in stats) echo "from the run time stats (default):" ;;
			   tramp) echo "through the trampoline:" ;;
			   hist) echo "through it with --hist:" ;; esac)" \
			"$on" "$(awk -v a="$on" -v b="$off" 'BEGIN { print a - b }')" \
			"$(awk -v on="$on" -v f="$floor" -v o="$off" 'BEGIN { printf "%.2f", (on - o) / (f - o) }')"
	done
	local o_off o_hist
	o_off=$(b other_off)
	o_hist=$(b other_hist)
	printf '  another program, while --hist is on the target: %.1f ns per run, alone %.1f: %s (goal 1.00)\n' \
		"$o_hist" "$o_off" "$(ratio "$o_hist" "$o_off")"

	# field KIND N NAME: median of NAME over the rounds
	field() {
		sed -n "s/^bench-shared kind=$1 n=$2 .*$3=\\([0-9.]*\\).*/\\1/p" "$work/guest.out" | median
	}
	local base n ev sw ms
	base=$(field none 0 ns_per_switch)
	echo
	echo "--bpf-counters (guest, 2 CPUs, cpu-clock on every CPU, -I 1000, $clock; median of $rounds rounds):"
	printf '  %-6s %3s %12s %16s %18s %14s\n' kind N "perf events" "ns/switch" "added/session" "session CPU ms"
	printf '  %-6s %3s %12s %16.1f\n' none 0 "$(field none 0 events)" "$base"
	for n in 1 4 16; do
		for kind in bperf plain; do
			ev=$(field $kind $n events)
			sw=$(field $kind $n ns_per_switch)
			ms=$(field $kind $n session_ms)
			printf '  %-6s %3s %12s %16.1f %18.1f %14s\n' $kind $n "$ev" "$sw" \
				"$(awk -v a="$sw" -v b="$base" -v n=$n 'BEGIN { print (a - b) / n }')" "$ms"
		done
	done
	echo "  (perf events: all open in the guest; ns/switch: pingpong's; session CPU: the sessions' user+system time while pingpong ran)"
}

case $what in
host) host ;;
guest) guest ;;
both) host; guest ;;
esac
