# SPDX-License-Identifier: GPL-2.0
#
# What the storm benches share (sourced by run-storm.sh and run-memory.sh):
# the tools ($BPFREC, $STORM, $PERF: as given, else built here), root, a
# scratch $tmp removed at exit, and bpfrec record and perf record
# recording the same storm side by side, each measured by a waiter.

bench=$(basename "$0" .sh)
bpfrec_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../tools/bpfrec" && pwd)
BPFREC=${BPFREC:-$bpfrec_dir/bpfrec}
STORM=${STORM:-$bpfrec_dir/.output/storm}
PERF=${PERF:-/usr/bin/perf}

[ "$(id -u)" -eq 0 ] || { echo "$bench: needs root" >&2; exit 1; }
make -s -C "$bpfrec_dir" bpfrec .output/storm >&2

tmp=$(mktemp -d "/tmp/bpfrec-$bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# waited NAME CMD...: CMD in the background as the child of a waiter,
# which writes "CPU_SECONDS PEAK_RSS_KIB" of it into $tmp/NAME.usage
# (wait4(): user + sys of the process and its threads in microseconds, as
# /usr/bin/time rounds to 10 ms; ru_maxrss); the waiter's pid in
# $tmp/NAME.pid, CMD's output in $tmp/NAME.log
waited() {
	local name=$1
	shift
	python3 -c '
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
ru = os.wait4(pid, 0)[2]
with open(sys.argv[1], "w") as f:
    print("%.6f %d" % (ru.ru_utime + ru.ru_stime, ru.ru_maxrss), file=f)
' "$tmp/$name.usage" "$@" >"$tmp/$name.log" 2>&1 &
	echo $! >"$tmp/$name.pid"
}

# cpu_of NAME, rss_of NAME: its CPU seconds, its peak RSS in KiB
cpu_of() { awk '{ printf "%.4f", $1 }' "$tmp/$1.usage"; }
rss_of() { awk '{ print $2 }' "$tmp/$1.usage"; }

# the recorders, bpfrec and perf, into $tmp/bpfrec.data and $tmp/perf.data.
# Each gets a workload that says it started: both start theirs once
# recording (perf after synthesising every task, bpfrec every BPF object),
# so the storm begins when both record, however loaded the machine; a
# fixed wait lost the whole storm under load.  The workload then sleeps
# in one process until the recorder's stop ends it.
recorders_start() {
	local r i
	for r in bpfrec perf; do
		rm -f "$tmp/$r.ready"
	done
	waited bpfrec "$BPFREC" record -e bpf-events -o "$tmp/bpfrec.data" -- \
		sh -c "echo >$tmp/bpfrec.ready; exec sleep 100000"
	waited perf "$PERF" record -a -e dummy -o "$tmp/perf.data" -- \
		sh -c "echo >$tmp/perf.ready; exec sleep 100000"
	for r in bpfrec perf; do
		for ((i = 0; i < 1200; i++)); do
			[ -e "$tmp/$r.ready" ] && break
			sleep 0.05
		done
		[ -e "$tmp/$r.ready" ] || { echo "$bench: $r did not start recording in 60 s: $(tail -n 1 "$tmp/$r.log")" >&2; exit 1; }
	done
}

# recorder_pid NAME: the recorder's pid (the waiter's child)
recorder_pid() { pgrep -P "$(cat "$tmp/$1.pid")"; }

# both stopped as Ctrl-C stops them, and their files finished; their
# pids stay in $tmp/NAME.rpid
recorders_stop() {
	local r
	for r in bpfrec perf; do
		recorder_pid $r >"$tmp/$r.rpid"
		kill -INT "$(cat "$tmp/$r.rpid")"
	done
	wait
}
