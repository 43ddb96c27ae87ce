#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a system-wide recorder costs the rest of the machine, in the same
# run: nothing recording, `bpfrec record` on each capture path this kernel
# offers (fentry where it takes trampolines, syscall: the bpf() syscall
# tracepoints, off), and `perf record -a -e dummy`.
#
#   ns/call  a loop of getppid(): the fastest of 5 rounds of 200000 calls,
#            in the loop's own CPU time (bench/syscall_loop.c), the cost
#            every task pays on every syscall;
#   wall     the same loop run as the recorder's workload (`bpfrec record
#            -e bpf-events -- LOOP`, `perf record -a -e dummy -- LOOP`),
#            timed by the wall clock over all 5 rounds: what a user who
#            times a command under the recorder sees, start-up excluded;
#   storm    the CPU time (user + sys, wait4()) of a storm of short-lived
#            programs (bench/storm.c): the cost paid by the tasks that
#            create BPF objects, whose facts the capture takes in their
#            context.
#
# Each configuration is measured REPS times, interleaved with the others,
# and its median is compared to nothing recording.
#
#   bench/run-syscall-cost.sh [REPS [STORM_N]]    default 5 2000; root
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bpfrec_dir=$here/../tools/bpfrec
BPFREC=${BPFREC:-$bpfrec_dir/bpfrec}
STORM=${STORM:-$bpfrec_dir/.output/storm}
LOOP=${LOOP:-$bpfrec_dir/.output/syscall_loop}
PERF=${PERF:-/usr/bin/perf}
reps=${1:-5}
storm_n=${2:-2000}

[ "$(id -u)" -eq 0 ] || { echo "run-syscall-cost: needs root" >&2; exit 1; }
make -s -C "$bpfrec_dir" bpfrec .output/storm .output/syscall_loop >&2

tmp=$(mktemp -d /tmp/bpfrec-syscost.XXXXXX)
rec=
cleanup() {
	[ -n "$rec" ] && kill -INT "$rec" 2>/dev/null && wait "$rec" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# The paths bpfrec offers here: what auto picks says whether fentry is one.
"$BPFREC" record -o "$tmp/probe.data" --duration 1 2>"$tmp/probe.err" >/dev/null
configs="none"
grep -q '(fentry)' "$tmp/probe.err" && configs="$configs bpfrec-fentry"
configs="$configs bpfrec-syscall bpfrec-off perf"

# start CONFIG: the recorder of CONFIG in the background, once it is set up
start() {
	local i=0
	rec=
	case $1 in
	none)	return ;;
	perf)
		"$PERF" record -q -a -e dummy -o "$tmp/perf.data" >/dev/null 2>&1 &
		rec=$!
		# it says nothing when ready: its synthesis of every task takes this long
		sleep 3 ;;
	bpfrec-*)
		"$BPFREC" record --capture="${1#bpfrec-}" -o "$tmp/bpfrec.data" \
			>/dev/null 2>"$tmp/rec.err" &
		rec=$!
		while ! grep -q '^bpfrec record: captur' "$tmp/rec.err" && [ $i -lt 100 ]; do
			sleep 0.1; i=$((i + 1))
		done
		# and its synthesis of the existing objects
		sleep 1 ;;
	esac
}

# wall_of CONFIG: the loop as CONFIG's workload, its wall ns per call
wall_of() {
	local loop=("$LOOP" 200000 5 wall)

	case $1 in
	none)	"${loop[@]}" ;;
	perf)	"$PERF" record -q -a -e dummy -o "$tmp/perf-wall.data" -- "${loop[@]}" 2>/dev/null ;;
	bpfrec-*)
		"$BPFREC" record -e bpf-events --capture="${1#bpfrec-}" \
			-o "$tmp/bpfrec-wall.data" -- "${loop[@]}" 2>/dev/null ;;
	esac
}

stop() {
	[ -n "$rec" ] || return 0
	kill -INT "$rec"
	wait "$rec" || true
	rec=
}

# cpu_of CMD...: the user + sys seconds of CMD
cpu_of() {
	python3 -c '
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
ru = os.wait4(pid, 0)[2]
print("%.4f" % (ru.ru_utime + ru.ru_stime))
' "$@"
}

for r in $(seq "$reps"); do
	for c in $configs; do
		start "$c"
		echo "$c $("$LOOP" 200000 5) $(cpu_of "$STORM" -n "$storm_n" -p sysc)" >"$tmp/row"
		stop
		echo "$(cat "$tmp/row") $(wall_of "$c")" >>"$tmp/results"
	done
	echo "round $r of $reps done" >&2
done

python3 - "$tmp/results" "$configs" "$reps" "$storm_n" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
configs = sys.argv[2].split()
med = {c: [statistics.median(float(r[i]) for r in rows if r[0] == c) for i in (1, 3, 2)]
       for c in configs}
base = med["none"]
print("%-15s %10s %8s %12s %8s %12s %8s" % ("recorder", "ns/call", "ratio", "wall ns/call",
      "ratio", "storm cpu s", "ratio"))
for c in configs:
    ns, wall, cpu = med[c]
    print("%-15s %10.1f %7.3fx %12.1f %7.3fx %12.3f %7.3fx" %
          (c, ns, ns / base[0], wall, wall / base[1], cpu, cpu / base[2]))
print("medians of %s runs each; getppid() loop, CPU time with the recorder beside it "
      "and wall time as its workload; storm of %s programs" % (sys.argv[3], sys.argv[4]))
PY
