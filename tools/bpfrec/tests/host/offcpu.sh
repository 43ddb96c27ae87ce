#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of `bpfrec record --off-cpu`: run as root on the host kernel
# (tp_btf on sched_switch).
#
#   BPFREC=path/to/bpfrec SLEEPER=path/to/sleeper tests/host/offcpu.sh
#
# sleeper (tests/offcpu/) sleeps ten times 100 ms in sleep_in_known_place();
# a sample is in that stack when its innermost user frame (of bpfrec
# script's callchain) lies in the function, as nm tells (offcpu_stats of
# tests/lib/profile.sh, which the guest tests share).  The other tasks of a
# busy machine delay its wakeups, and preempt it in the function (state
# R): its sleeps are recorded in states R, S and D, and the time off CPU
# checked against the time they took by its own clock (within 5 %), and
# that against 1 s.  Needs python3; perf
# (linux-perf) and perf 7.2 (PERF72, as scripts/build-perf.sh builds it)
# for the reading by perf, else those tests say SKIP.
# Last line: "offcpu: N passed, N failed, N skipped"; exit 1 if anything failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
SLEEPER=${SLEEPER:-$here/../../.output/sleeper}
PERF72=${PERF72:-${BPFREC_CACHE:-/var/cache/bpfrec}/perf-7.2/build/perf}

. "$here/lib.sh"
. "$here/../lib/profile.sh"

host_setup offcpu "$BPFREC" "$SLEEPER"

cg=
trap '[ -n "$cg" ] && rmdir "$cg" 2>/dev/null; rm -rf "$tmp"' EXIT

# usage NAME STATUS LINE ARGS...: bpfrec record ARGS... exits STATUS saying exactly LINE
usage() { one_line "$1" "$2" "$3" record -o "$tmp/usage.data" "${@:4}"; }

see="(see bpfrec record --help)"
for t in abc -1 +5 1. .5 5m 5usec 2ms3 '' 3600001 3600.001s 18446744073709551616; do
	usage "--off-cpu-thresh '$t' exits 2" 2 \
		"bpfrec record: --off-cpu-thresh wants milliseconds or a time with a unit (ns, us, ms, s), at most an hour, not '$t' $see" \
		--off-cpu --off-cpu-thresh "$t" -- true
done
usage "--off-cpu-state X exits 2" 2 \
	"bpfrec record: --off-cpu-state wants letters of R, S, D, T, I, not 'SX' $see" \
	--off-cpu --off-cpu-state SX -- true
usage "--off-cpu-state '' exits 2" 2 \
	"bpfrec record: --off-cpu-state wants letters of R, S, D, T, I, not '' $see" \
	--off-cpu --off-cpu-state '' -- true
usage "--off-cpu-threads some exits 2" 2 \
	"bpfrec record: --off-cpu-threads wants user, kernel or all, not 'some' $see" \
	--off-cpu --off-cpu-threads some -- true
usage "--off-cpu-cgroup of no cgroup exits 2" 2 \
	"bpfrec record: --off-cpu-cgroup: '/proc' is not a cgroup v2 directory $see" \
	--off-cpu --off-cpu-cgroup /proc -- true
for t in 0 -1 x 1048577 16k; do
	usage "--off-cpu-stacks '$t' exits 2" 2 \
		"bpfrec record: --off-cpu-stacks wants a number of slots from 1 to 1048576, not '$t' $see" \
		--off-cpu --off-cpu-stacks "$t" -- true
done
usage "--off-cpu-thresh without --off-cpu exits 2" 2 \
	"bpfrec record: the --off-cpu-* options and --wakers need --off-cpu $see" --off-cpu-thresh 5 -- true

# where sleep_in_known_place is, "START SIZE" in hex
# as the recording names the file: the path the sleeper was run by, resolved
SLEEPER_PATH=$(readlink -f "$SLEEPER")
read -r fstart fsize < <(nm -S "$SLEEPER" | awk '$4 == "sleep_in_known_place" { print $1, $2 }')

# frames(r): the frames of a sample of script --json, for the checks below
# (PYTHONPATH=$tmp, from frames import frames)
cat >"$tmp/frames.py" <<'PY'
def frames(r):
    """(kernel frames, user frames) of a sample: user ones are named
    "symbol+0xoff (file)" or are addresses below 2^47"""
    k = u = 0
    for f in r.get("callchain", []):
        if f.endswith(")"):
            u += 1
            continue
        try:
            a = int(f, 16)
        except ValueError:
            k += 1
            continue
        if a >= 1 << 47:
            k += 1
        else:
            u += 1
    return k, u
PY

# stats FILE [THRESH_NS]: offcpu_stats of the sleeper's function
stats() { offcpu_stats "$1" "$fstart" "$fsize" sleep_in_known_place "${2:-0}"; }

# What the checks below and the guest's count as a sample in the function:
# only one whose innermost user frame is there. Four samples as script
# --json writes them: the sleeper's, named; one whose user frame has no
# symbol; a kernel thread's; and its recorder's, in libc's syscall() with
# the sleeper's return address in the next word the frame pointer found
# (seen on a busy host: the test then said the sleeps were two processes').
offcpu_line() {
	printf '{"time":1.0,"time_ns":%s,"cpu":0,"pid":%s,"tid":%s,"comm":"%s","event":"offcpu-time","name":"__schedule","type":"kernel","details":{"ip":"0xffffffff821f8298","off_cpu_ns":%s},"callchain":[%s]}\n' \
		"$@"
}
kernel='"__schedule+0x618","schedule+0x23","do_nanosleep+0x5e","entry_SYSCALL_64_after_hwframe+0x76"'
ret=$(printf '0x%x' $((0x$fstart + 0x4f)))
{
	offcpu_line 10 4627 4627 sleeper 100000000 \
		"$kernel,\"sleep_in_known_place+0x4f ($SLEEPER_PATH)\",\"sleeps+0x56 ($SLEEPER_PATH)\""
	offcpu_line 20 4627 4627 sleeper 200000000 "$kernel,\"$ret\",\"0x401000\""
	offcpu_line 20 12 12 kworker 5000000 "$kernel"
	offcpu_line 30 4626 4626 bpfrec 98894 \
		"$kernel,\"syscall+0x19 (/usr/lib/x86_64-linux-gnu/libc.so.6)\",\"$ret\""
} >"$tmp/frames.json"
got=$(offcpu_stats_json "$tmp/frames.json" "$fstart" "$fsize" sleep_in_known_place 150000000)
result "offcpu_stats: a sample is in the function by its innermost user frame only (1 2 300000000 2 4627)" \
	"$([ "$got" = "1 2 300000000 2 4627" ] || echo "got '$got'")"

# record NAME THRESH FILE [OPTION...]: the sleeper's ten sleeps of 100 ms,
# its report line in $tmp/FILE.err, how long it slept in $slept
record() {
	"$BPFREC" record --off-cpu --off-cpu-state RSD --off-cpu-thresh "$2" "${@:4}" -o "$tmp/$3" -- \
		"$SLEEPER" -n 10 -m 100 >"$tmp/$3.out" 2>"$tmp/$3.err" || return 1
	sleeper_ran "$tmp/$3.out" "$tmp/$3.err"
	# a machine so busy that the sleeps took 5 % longer cannot tell 1 s within 5 %
	within "$slept" 1000000000 5 || echo "note: the sleeps took $slept ns by the sleeper's clock"
	# ends that no sched_switch told, recovered from the CPU time (off_cpu.bpf.c)
	sed -n 's/^bpfrec record: off-CPU: \(.* no switch back\).*/note: \1/p' "$tmp/$3.err"
}

# 1. 50 ms (a plain number is milliseconds, as perf 6.16+ reads it): each
# 100 ms sleep is a sample of its own, written as it ended
if record direct 50 direct.data; then
	read -r n all sum ntimes pids < <(stats "$tmp/direct.data" 50000000)
	why=
	[ "$n" -le 10 ] && [ "$n" -ge $((10 - unmeasured)) ] ||
		why="$n samples of 50 ms or more in the known stack, want 10 ($unmeasured unmeasured)"
	# and the short intervals (preempted in the function) at the stop, if any
	[ -z "$why" ] && [ "$ntimes" != $((n + (all > n))) ] && why="$ntimes distinct times of $all samples"
	[ -z "$why" ] && [ "$unmeasured" = 0 ] && ! within "$sum" "$slept" 5 &&
		why="$sum ns off CPU, want $slept within 5 % ($(tr '\n' ' ' <"$tmp/durations")$(grep LOST "$tmp/direct.data.err"))"
	[ -z "$why" ] && awk '$1 < 100000000 { exit 1 }' "$tmp/durations" ||
		why=${why:-"a sleep of 100 ms lasted $(tr '\n' ' ' <"$tmp/durations")"}
	grep -q "intervals >= 50 ms as they ended" "$tmp/direct.data.err" ||
		why=${why:-"report: $(grep off-CPU "$tmp/direct.data.err")"}
	result "--off-cpu-thresh 50: ten direct samples of 100 ms, $sum ns in all" "$why"
	direct_ratio=$(ratio "$sum" "$slept")
	direct_unmeasured=$unmeasured
	[ "$unmeasured" = 0 ] || direct_ratio=
else
	fail "--off-cpu-thresh 50 records" "$(tail -1 "$tmp/direct.data.err")"
	direct_ratio=
	direct_unmeasured=0
fi

# 1b. the report names the kernel frames from the kallsyms the file kept, also
#     where the machine reading it has none (an empty --kallsyms: another machine)
if [ -f "$tmp/direct.data" ]; then
	: >"$tmp/empty.kallsyms"
	"$BPFREC" report -i "$tmp/direct.data" --off-cpu --kallsyms "$tmp/empty.kallsyms" \
		>"$tmp/report.txt" 2>"$tmp/report.err"
	"$BPFREC" report -i "$tmp/direct.data" --off-cpu --folded --kallsyms "$tmp/empty.kallsyms" \
		>"$tmp/report.folded" 2>>"$tmp/report.err"
	result "report names the sleeps' kernel frames from the file's kallsyms" "$(
		grep -q '^# kernel symbols from the kallsyms the file kept ([0-9]* symbols of '"$(uname -n)"')$' "$tmp/report.txt" ||
			echo "kallsyms line: $(grep '^# kernel' "$tmp/report.txt") $(head -c 200 "$tmp/report.err")"
		grep -q '^sleeper;.*;hrtimer_nanosleep;do_nanosleep;schedule;__schedule [0-9]*$' "$tmp/report.folded" ||
			echo "no sleeper stack in hrtimer_nanosleep: $(grep '^sleeper' "$tmp/report.folded" | head -c 300)")"
	# the user frames: the mappings of the sleeper's exec, made after the
	# start, recorded by the tracking event (--off-cpu samples from BPF)
	user_ns=$(awk '/;main;sleeps;sleep_in_known_place;entry_SYSCALL_64/ { s += $NF } END { print s + 0 }' \
		"$tmp/report.folded")
	result "report names the sleeps' user frames (main;sleeps;sleep_in_known_place): all $sum ns of them" "$(
		within "$user_ns" "$sum" 1 ||
			echo "$user_ns ns in that stack: $(grep '^sleeper' "$tmp/report.folded" | sort -t' ' -k2 -n | tail -n 1 | head -c 300)")"
	# and script names them as perf script does: symbol+offset (file)
	"$BPFREC" script -i "$tmp/direct.data" >"$tmp/script.txt" 2>>"$tmp/report.err"
	"$BPFREC" script -i "$tmp/direct.data" --json >"$tmp/script.json" 2>>"$tmp/report.err"
	result "script names the sleeps' user frames: sleep_in_known_place+0x.. (sleeper), sleeps, main" "$(
		frames=$(grep -A 20 ' sleeper .* offcpu-time ' "$tmp/script.txt" | grep -v '^[0-9]' |
			sed -n 's/^\t *[0-9a-f]* \([a-z_]*\)+0x[0-9a-f]* (sleeper)$/\1/p' | head -n 3 | tr '\n' ' ')
		[ "$frames" = "sleep_in_known_place sleeps main " ] ||
			echo "frames '$frames': $(grep -m 1 -A 12 ' sleeper .* offcpu-time ' "$tmp/script.txt" | tail -n 5 | tr '\n\t' '  ')"
		grep -q '"callchain":\[.*"entry_SYSCALL_64_after_hwframe+0x[0-9a-f]*","sleep_in_known_place+0x[0-9a-f]* ('"$SLEEPER_PATH"')","sleeps+0x[0-9a-f]* ('"$SLEEPER_PATH"')","main+0x[0-9a-f]* ('"$SLEEPER_PATH"')"' "$tmp/script.json" ||
			echo "--json: $(grep -m 1 offcpu-time "$tmp/script.json" | grep -o '"callchain".*' | head -c 300)")"
fi

# 2. 200 ms, said with a unit: the same sleeps summed, written when the recording stopped
if record sums 200000us sums.data; then
	read -r n all sum ntimes pids < <(stats "$tmp/sums.data" 200000000)
	why=
	# a sleep that a busy machine stretched to 200 ms or more is a sample of
	# its own, written as it ended: one more distinct time each
	over=$(sed -n 's/.*(\([0-9]*\) intervals >= 200 ms as they ended.*/\1/p' "$tmp/sums.data.err")
	[ -n "$over" ] || why="report: $(grep off-CPU "$tmp/sums.data.err")"
	[ -z "$why" ] && [ "$ntimes" != $((over + 1)) ] &&
		why="$ntimes distinct times, want 1 (the stop) + $over (sleeps of 200 ms or more)"
	[ -z "$why" ] && [ "$unmeasured" = 0 ] && ! within "$sum" "$slept" 5 &&
		why="$sum ns off CPU, want $slept within 5 %"
	result "--off-cpu-thresh 200000us: the sleeps summed at the stop, $sum ns in all" "$why"
	if [ -n "$direct_ratio" ] && [ "$unmeasured" = 0 ]; then
		ratio=$(ratio "$sum" "$slept")
		why=
		within "$ratio" "$direct_ratio" 2 || why="summed $ratio of the sleeps, direct $direct_ratio"
		result "direct and summed totals agree within 2 % (of the time slept)" "$why"
	fi
else
	fail "--off-cpu-thresh 200000us records" "$(tail -1 "$tmp/sums.data.err")"
fi

# 3. perf reads both files: the same samples, the same time off CPU, the
# same threads.  Debian's perf (6.1) reads the samples' own fields; perf 7.2
# reads an offcpu-time sample's raw data in its own off-CPU layout instead,
# and rejected the whole file before bpfrec wrote that layout.
perfs=()
if command -v perf >/dev/null; then
	perfs+=("$(command -v perf)")
else
	skip "perf script reads the files" "no perf (linux-perf)"
fi
if [ -x "$PERF72" ]; then
	perfs+=("$PERF72")
else
	skip "perf 7.2 script reads the files" "no perf 7.2 at $PERF72 (scripts/build-perf.sh builds it)"
fi
for p in "${perfs[@]}"; do
	v=$("$p" --version | awk '{ print $3 }')
	for f in direct sums; do
		[ -f "$tmp/$f.data" ] || continue
		ours=$("$BPFREC" script -i "$tmp/$f.data" --json |
			python3 -c 'import json, sys
rs = [json.loads(l) for l in sys.stdin]
rs = [r for r in rs if r["event"] == "offcpu-time"]
print(len(rs), sum(r["details"]["off_cpu_ns"] for r in rs),
      ",".join(sorted(set("%d/%d" % (r["pid"], r["tid"]) for r in rs))))')
		"$p" script -i "$tmp/$f.data" -F pid,tid,event,period >"$tmp/perf.out" 2>"$tmp/perf.err"
		rc=$?
		theirs="$(awk '$3 == "offcpu-time:" { n++; s += $2 } END { printf "%d %d\n", n, s }' \
			"$tmp/perf.out") $(awk '$3 == "offcpu-time:" { print $1 }' "$tmp/perf.out" |
			LC_ALL=C sort -u | paste -sd,)"
		why=
		[ "$rc" = 0 ] || why="perf $v script exit $rc: $(head -c 200 "$tmp/perf.err")"
		[ -z "$why" ] && [ -s "$tmp/perf.err" ] && why="perf $v: $(head -c 200 "$tmp/perf.err")"
		[ -z "$why" ] && [ "$ours" != "$theirs" ] &&
			why="perf $v: $theirs, bpfrec: $ours (samples, ns, pid/tid)"
		result "perf $v script reads the $f file: same samples, periods and threads" "$why"
		# The stacks, which perf 7.2 takes from the raw data.  The sums are
		# written at the stop, after the sleeper's EXIT, and perf 7.2's script
		# forgets exited threads and their maps (its report keeps them).  So
		# only the direct samples count, of 50 ms or more: a short interval in
		# the function (preempted there) is summed at the stop in this file too.
		if [ $f = direct ]; then
			ours=$("$BPFREC" script -i "$tmp/$f.data" --json | grep '"event":"offcpu-time"' |
				grep 'sleep_in_known_place+' | sed 's/.*"off_cpu_ns":\([0-9]*\).*/\1/' |
				awk '$1 >= 50000000' | wc -l)
			theirs=$("$p" script -i "$tmp/$f.data" -F event,ip,sym,period 2>/dev/null |
				awk '/offcpu-time:/ { in_s = ($1 >= 50000000); hit = 0; next }
				     /^$/ { in_s = 0 }
				     in_s && / sleep_in_known_place$/ && !hit { n++; hit = 1 }
				     END { print n + 0 }')
			result "perf $v script shows the direct file's stacks: $theirs in the sleeps' function" \
				"$([ "$ours" = "$theirs" ] || echo "perf $v: $theirs, bpfrec: $ours")"
			# each stack starts where the task waits, not in the profiler's handler
			own=$("$p" script -i "$tmp/$f.data" -F event,ip,sym 2>/dev/null |
				awk '/offcpu-time:/ { first = 1; n++; next }
				     first && NF { first = 0; if ($2 ~ /^(bpf_trace_run|__traceiter_|__bpf_trace_|bpf_prog_)/) bad++ }
				     END { print bad + 0, n + 0 }')
			result "perf $v script: no off-CPU stack starts in the profiler's frames (${own#* } stacks)" \
				"$([ "${own% *}" = 0 ] && [ "${own#* }" -ge $((10 - direct_unmeasured)) ] ||
				   echo "${own% *} of ${own#* } start there")"
		else
			"$p" report -i "$tmp/$f.data" --stdio --no-children -g caller >"$tmp/perf.out" 2>&1
			result "perf $v report shows the summed stack's user frames" \
				"$(grep -q ' sleep_in_known_place$' "$tmp/perf.out" ||
				   echo "no sleep_in_known_place in: $(grep -v '^#' "$tmp/perf.out" | head -c 300)")"
		fi
	done
done

# 4. states: the sleeps are S; with D alone none of them is recorded
if "$BPFREC" record --off-cpu --off-cpu-state D --off-cpu-thresh 0 -o "$tmp/d.data" -- \
	"$SLEEPER" -n 3 -m 20 >/dev/null 2>"$tmp/d.err"; then
	# a short D in the function is not a sleep: the kernel may block it anywhere
	read -r n all sum ntimes pids < <(stats "$tmp/d.data" 20000000)
	result "--off-cpu-state D: no sample of the sleeps (state S)" \
		"$([ "$n" = 0 ] || echo "$n samples of 20 ms or more in the known stack")"
else
	fail "--off-cpu-state D records" "$(tail -1 "$tmp/d.err")"
fi

# 5. kernel threads: no user stack, and none of the workload's samples
if "$BPFREC" record --off-cpu --off-cpu-threads kernel --off-cpu-thresh 0 --duration 1 \
	-o "$tmp/k.data" >/dev/null 2>"$tmp/k.err"; then
	why=$("$BPFREC" script -i "$tmp/k.data" --json | PYTHONPATH=$tmp python3 -c 'import json, sys
from frames import frames
rs = [json.loads(l) for l in sys.stdin]
rs = [r for r in rs if r["event"] == "offcpu-time"]
bad = [r for r in rs if frames(r)[1] or not frames(r)[0]]
if not rs:
    print("no sample of a kernel thread in 1 s")
elif bad:
    print("%d samples with user frames or no kernel frame, as %s" % (len(bad), bad[0]))')
	grep -q "could not be read" "$tmp/k.err" && why=${why:-"$(grep 'could not' "$tmp/k.err")"}
	result "--off-cpu-threads kernel: kernel stacks only, no lost stack" "$why"
else
	fail "--off-cpu-threads kernel records" "$(tail -1 "$tmp/k.err")"
fi

# 6. stacks whose slot of the stack map another stack holds.  A stack map
#    keeps one stack per slot: 4096 user stacks in its 16384 slots collide
#    hundreds of times, and the colliders are kept by hash instead, so none
#    is lost.  With one slot the same happens to all but the first, and the
#    sleeper's ten sleeps keep their stacks.  Past what the hash table holds
#    (1024 with one slot) the time is kept with the kernel stack only, and
#    the loss said.
# lost_ustacks FILE: the sleeper's samples with a kernel stack and no user one
lost_ustacks() {
	"$BPFREC" script -i "$1" --json | PYTHONPATH=$tmp python3 -c 'import json, sys
from frames import frames
rs = [json.loads(l) for l in sys.stdin]
print(sum(1 for r in rs if r["event"] == "offcpu-time" and r.get("comm") == "sleeper"
          and not frames(r)[1] and frames(r)[0]))'
}
# said_n FILE.err WHAT: the number the recorder's line about WHAT starts with, or 0
said_n() {
	sed -n "s/^bpfrec record: off-CPU: \([0-9]*\) $2.*/\1/p" "$1" | grep . || echo 0
}
if "$BPFREC" record --off-cpu --off-cpu-thresh 1s -o "$tmp/b.data" -- "$SLEEPER" -b 12 \
	>/dev/null 2>"$tmp/b.err"; then
	read -r n all sum ntimes pids < <(stats "$tmp/b.data")
	lost=$(lost_ustacks "$tmp/b.data")
	spilled=$(said_n "$tmp/b.err" "stacks\{0,1\} found \(its\|their\) slot")
	why=
	# a sleep of 1 us that ends before the switch is no interval: a few fewer than 4096
	[ "$n" -ge 4000 ] && [ "$n" -le 4096 ] || why="$n distinct stacks in the known function, want 4096"
	[ -z "$why" ] && [ "$lost" != 0 ] && why="$lost samples of the sleeper without their user stack"
	[ -z "$why" ] && grep -q "could not be read" "$tmp/b.err" && why=$(grep "could not be read" "$tmp/b.err")
	[ -z "$why" ] && [ "$spilled" -lt 1 ] && why="no stack said kept by hash: $(grep off-CPU "$tmp/b.err")"
	result "4096 user stacks: $spilled collided in the stack map, kept by hash, none lost" "$why"
else
	fail "4096 stacks record" "$(tail -1 "$tmp/b.err")"
fi

if record one 50 one.data --off-cpu-stacks 1; then
	read -r n all sum ntimes pids < <(stats "$tmp/one.data" 50000000)
	spilled=$(said_n "$tmp/one.data.err" "stacks\{0,1\} found \(its\|their\) slot")
	why=
	[ "$n" -le 10 ] && [ "$n" -ge $((10 - unmeasured)) ] ||
		why="$n samples of 50 ms or more in the known function, want 10 ($unmeasured unmeasured)"
	[ -z "$why" ] && grep -q "could not be read" "$tmp/one.data.err" &&
		why=$(grep "could not be read" "$tmp/one.data.err")
	[ -z "$why" ] && [ "$spilled" -lt 1 ] && why="no stack said kept by hash: $(grep off-CPU "$tmp/one.data.err")"
	result "--off-cpu-stacks 1: the ten sleeps with their stacks, $spilled kept by hash" "$why"
else
	fail "--off-cpu-stacks 1 records" "$(tail -1 "$tmp/one.data.err")"
fi

if "$BPFREC" record --off-cpu --off-cpu-stacks 1 --off-cpu-thresh 1s -o "$tmp/full.data" -- \
	"$SLEEPER" -b 12 >/dev/null 2>"$tmp/full.err"; then
	read -r n all sum ntimes pids < <(stats "$tmp/full.data")
	lost=$(lost_ustacks "$tmp/full.data")
	said=$(said_n "$tmp/full.err" "samples\{0,1\} with a stack that could not be read")
	spilled=$(said_n "$tmp/full.err" "stacks\{0,1\} found \(its\|their\) slot")
	why=
	# one slot and 1024 by hash, some of them the sleeper's other stacks
	[ "$n" -ge 900 ] && [ "$n" -le 1024 ] || why="$n distinct stacks in the known function, want 900 to 1024"
	[ -z "$why" ] && [ "$spilled" != 1024 ] && why="$spilled stacks said kept by hash, want 1024"
	[ -z "$why" ] && [ "$said" -lt 1 ] && why="no report of lost stacks: $(grep off-CPU "$tmp/full.err")"
	[ -z "$why" ] && [ "$lost" -lt 1 ] && why="no sample of the sleeper with the kernel stack only"
	result "stack map and hash table full: kernel stack kept, $said said lost" "$why"
else
	fail "--off-cpu-stacks 1, 4096 stacks record" "$(tail -1 "$tmp/full.err")"
fi

# 7. cgroup: a sleeper in a cgroup of its own and one outside, recorded
#    system-wide for 2 s (however long the start takes on a loaded machine)
root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -z "$root" ]; then
	skip "--off-cpu-cgroup" "cgroup v2 is not mounted"
else
	cg=$root/bpfrec-offcpu-$$
	mkdir "$cg"
	sh -c "echo \$\$ > $cg/cgroup.procs && exec $SLEEPER -n 600 -m 50" >/dev/null &
	inside=$!
	"$SLEEPER" -n 600 -m 50 >/dev/null &
	outside=$!
	# both sleep before the recording starts, the first in the cgroup
	sleeping() { [ "$(cat "/proc/$1/comm" 2>/dev/null)" = sleeper ]; }
	wait_until 60 sleeping $inside
	wait_until 60 sleeping $outside
	"$BPFREC" record --off-cpu --off-cpu-cgroup "${cg#"$root"/}" --off-cpu-thresh 0 --duration 2 \
		-o "$tmp/cg.data" >/dev/null 2>"$tmp/cg.err"
	rc=$?
	kill "$inside" "$outside"
	wait "$inside" "$outside" 2>/dev/null
	if [ "$rc" = 0 ]; then
		read -r n all sum ntimes pids < <(stats "$tmp/cg.data" 50000000)
		why=
		# 2 s of 50 ms sleeps: 10 at least on a loaded machine
		[ "$n" -ge 10 ] || why="$n samples of 50 ms or more in the known stack, want 10+"
		[ -z "$why" ] && [ "$pids" != "$inside" ] && why="samples of pids $pids, want $inside only"
		result "--off-cpu-cgroup: the sleeper in the cgroup only" "$why"
	else
		fail "--off-cpu-cgroup records" "exit $rc: $(tail -1 "$tmp/cg.err")"
	fi
fi

# 8. -p and -t: a sleeper of two threads and another sleeper, recorded
#    system-wide but for the target: only its samples, each thread's sleeps
"$SLEEPER" -2 -n 600 -m 100 >/dev/null &
two=$!
"$SLEEPER" -n 600 -m 100 >/dev/null &
other=$!
two_threads() { [ "$(ls /proc/$two/task 2>/dev/null | wc -l)" -ge 2 ]; }
wait_until 60 two_threads
second=$(ls /proc/$two/task | grep -vx "$two")
# who FILE: "PIDS TIDS COMMS MIN" of the off-CPU samples, MIN the fewest
# samples of 50 ms or more of one thread
who() {
	"$BPFREC" script -i "$1" --json | python3 -c 'import json, sys
rs = [json.loads(l) for l in sys.stdin]
rs = [r for r in rs if r["event"] == "offcpu-time"]
per = {}
for r in rs:
    per[r["tid"]] = per.get(r["tid"], 0) + (r["details"]["off_cpu_ns"] >= 50000000)
j = lambda s: ",".join(sorted(map(str, s))) or "-"
print(j({r["pid"] for r in rs}), j(per), j({r.get("comm") for r in rs}), min(per.values() or [0]))'
}
for target in "-p $two" "-t $second"; do
	f=$tmp/target${target%% *}.data
	if "$BPFREC" record --off-cpu --off-cpu-thresh 50ms $target --duration 1 -o "$f" \
		>/dev/null 2>"$f.err"; then
		read -r pids tids comms least < <(who "$f")
		if [ "$target" = "-p $two" ]; then
			want="$two $(printf '%s\n' "$two" "$second" | sort | paste -sd,) sleeper"
		else
			want="$two $second sleeper"
		fi
		why=
		[ "$pids $tids $comms" = "$want" ] || why="pids, tids, comms: $pids $tids $comms, want $want"
		# 1 s of 100 ms sleeps: 5 at least per thread on a loaded machine
		[ -z "$why" ] && [ "$least" -lt 5 ] && why="a thread has $least sleeps of 50 ms or more, want 5+"
		result "--off-cpu $target: the target's samples only ($tids), named" "$why"
	else
		fail "--off-cpu $target records" "$(tail -1 "$f.err")"
	fi
done
kill "$two" "$other" 2>/dev/null
wait "$two" "$other" 2>/dev/null
usage "--off-cpu -p of a missing process exits 2" 2 \
	"bpfrec record: -p $(($(cat /proc/sys/kernel/pid_max) + 1)): no such process" \
	--off-cpu -p $(($(cat /proc/sys/kernel/pid_max) + 1))
usage "-p without an event or --off-cpu exits 2" 2 \
	"bpfrec record: -p and -t need something to record of their target: -e EVENT or --off-cpu $see" -p 1
# -g asks for samples: perf's default event with stacks, beside the off-CPU time
"$BPFREC" record -o "$tmp/g.data" --off-cpu -g --duration 1 >/dev/null 2>"$tmp/g.err"
rc=$?
result "--off-cpu -g: perf's default event sampled with stacks too" \
	"$([ $rc -eq 0 ] || echo "exit $rc: $(head -c 200 "$tmp/g.err")")$(
	   grep -q '^bpfrec record: sampling \(cycles\|cpu-clock\) at 4000 Hz with stacks on every CPU$' "$tmp/g.err" ||
	   echo " said: $(tr '\n' ' ' <"$tmp/g.err" | head -c 300)")"

echo "offcpu: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
