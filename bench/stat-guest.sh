#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of bench/run-stat-bench.sh: what needs BPF trampolines,
# which the host refuses.  POSIX sh and busybox; the tools in /opt/bpfrec/bin.
#   stat-guest.sh ROUNDS RUNS SEC
# Lines, parsed by the host:
#   bench-b round=R off=NS floor=NS stats=NS tramp=NS hist=NS other_off=NS other_hist=NS
#     ns per target run: no profiler, bare fentry+fexit, bpfrec stat -b
#     of cpu-clock from the run time stats, through the trampoline, and
#     through it with --hist (each run's time into a histogram); then ns
#     per run of another program, alone and while --hist is on the target
#     (what the histogram costs the programs it does not trace)
#   bench-shared kind=K n=N events=E ns_per_switch=NS session_ms=MS
#     K: none, bperf (bpfrec stat --bpf-counters) or plain (perf-count):
#     N sessions counting cpu-clock on every CPU (-I 1000); E perf events
#     open in the guest; NS per context switch of bench/pingpong.c run
#     for SEC seconds on CPU 0 (two switches a round trip: pinned, its
#     threads switch to each other, not through the idle task and a
#     cross-CPU wakeup, which under TCG vary more than what is measured);
#     MS the sessions' own CPU (user + system) while pingpong ran.
set -u
rounds=$1 runs=$2 sec=$3
bin=/opt/bpfrec/bin
tmp=$(mktemp -d)

# ran_ns FILE: the ns/run stat-prog printed
ran_ns() {
	awk '$1 == "ran" { print $3 }' "$1"
}

# held OUT: a program loaded and held in the background, its output in OUT;
# its id in $held_id once loaded (a loaded host makes the guest slow to get
# there), and the loader's pid in $held_pid
held() {
	"$bin/stat-prog" -s 100000 >"$1" &
	held_pid=$!
	for _ in $(seq 1 100); do
		held_id=$(awk '$1 == "id" { print $2; exit }' "$1")
		[ -n "$held_id" ] && return
		sleep 0.2
	done
	echo "bench: no program loaded" >&2
	exit 1
}
held "$tmp/target"
id=$held_id target=$held_pid
held "$tmp/other"
other=$held_id other_pid=$held_pid
r=1
while [ $r -le "$rounds" ]; do
	"$bin/stat-prog" -i "$id" -r "$runs" -k "$runs" >"$tmp/off" || exit 1
	"$bin/stat-prog" -f -i "$id" -r "$runs" -k "$runs" >"$tmp/floor" || exit 1
	for how in stats tramp hist; do
		opt=
		[ $how = tramp ] && opt=--trampoline
		[ $how = hist ] && opt=--hist
		# shellcheck disable=SC2086 # $opt: none or one option
		"$bin/bpfrec" stat -b "$id" -e cpu-clock $opt -- "$bin/stat-prog" -i "$id" -r "$runs" -k "$runs" \
			>"$tmp/$how" 2>&1 || { cat "$tmp/$how" >&2; exit 1; }
		grep -q "$runs runs" "$tmp/$how" || { cat "$tmp/$how" >&2; exit 1; }
	done
	"$bin/stat-prog" -i "$other" -r "$runs" -k "$runs" >"$tmp/other_off" || exit 1
	"$bin/bpfrec" stat -b "$id" --hist -- "$bin/stat-prog" -i "$other" -r "$runs" -k "$runs" \
		>"$tmp/other_hist" 2>&1 || { cat "$tmp/other_hist" >&2; exit 1; }
	echo "bench-b round=$r off=$(ran_ns "$tmp/off") floor=$(ran_ns "$tmp/floor") stats=$(ran_ns "$tmp/stats") tramp=$(ran_ns "$tmp/tramp") hist=$(ran_ns "$tmp/hist") other_off=$(ran_ns "$tmp/other_off") other_hist=$(ran_ns "$tmp/other_hist")"
	r=$((r + 1))
done
kill $target $other_pid

# cpu_ms PID...: user + system CPU of the processes, in ms
cpu_ms() {
	t=0
	for p in "$@"; do
		t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat")))
	done
	echo $((t * 1000 / $(getconf CLK_TCK 2>/dev/null || echo 100)))
}

# perf_events: perf event fds open in the guest
perf_events() {
	ls -l /proc/[0-9]*/fd 2>/dev/null | grep -c 'perf_event'
}

# shared KIND N: N sessions of KIND, pingpong timed while they run
shared() {
	kind=$1 n=$2 pids= i=0 ready=
	while [ $i -lt "$n" ]; do
		case $kind in
		bperf) ready='"event":"cpu-clock"'
			"$bin/bpfrec" stat --bpf-counters -e cpu-clock -a -I 1000 --json >"$tmp/s$i" 2>&1 & ;;
		plain) ready='^ready '
			"$bin/perf-count" -e cpu-clock -a -I 1000 >"$tmp/s$i" 2>&1 & ;;
		esac
		pids="$pids $!"
		i=$((i + 1))
	done
	# ready: every session printed its first interval (bperf) or "ready" (plain);
	# a message on stderr (the first one mounts bpffs and says so) is not enough
	for _ in $(seq 1 600); do
		i=0
		while [ $i -lt "$n" ] && grep -q "$ready" "$tmp/s$i"; do
			i=$((i + 1))
		done
		[ $i -eq "$n" ] && break
		sleep 0.1
	done
	[ $i -eq "$n" ] || { echo "bench: $kind sessions did not start" >&2; cat "$tmp"/s* >&2; exit 1; }
	events=$(perf_events)
	before=$(cpu_ms $pids)
	pp=$(taskset 1 "$bin/pingpong" "$sec" | awk '{ printf "%.1f", 1e9 / (2 * $1) }')
	after=$(cpu_ms $pids)
	[ -n "$pids" ] && kill -INT $pids && wait $pids
	echo "bench-shared kind=$kind n=$n events=$events ns_per_switch=$pp session_ms=$((after - before))"
}

r=1
while [ $r -le "$rounds" ]; do
	shared none 0
	for n in 1 4 16; do
		shared bperf $n
		shared plain $n
	done
	r=$((r + 1))
done
rm -rf "$tmp" /sys/fs/bpf/bpfrec_stat
