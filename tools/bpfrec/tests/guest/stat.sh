# SPDX-License-Identifier: GPL-2.0
#
# Guest tests of `bpfrec stat`, sourced by run.sh (its pass/fail/result,
# $BPFREC, $tmp and $here): the modes that need BPF trampolines, which
# the host kernel refuses, run here.  POSIX sh and busybox tools only.
#
# stat-prog (tests/stat/) loads an XDP program with BTF and runs it an
# exact number of times with BPF_PROG_TEST_RUN.

STAT_PROG=${STAT_PROG:-$here/stat-prog}
PERF_COUNT=${PERF_COUNT:-$here/perf-count}
SPINNER=${SPINNER:-$here/spinner}
st=$tmp/stat
mkdir -p "$st"

# field, near, perf_fds (counts.sh, from tests/lib/)
. "$here/counts.sh"

# sum NAME FILE
sum() {
	field "$1" "$2" | awk '{ s += $1 } END { print s + 0 }'
}

# holds_progs PID N: process PID holds N BPF programs
holds_progs() {
	[ "$(grep -ls '^prog_type:' /proc/$1/fdinfo/* 2>/dev/null | wc -l)" -ge "$2" ]
}
# wait_loaded PID N: until process PID holds N BPF programs (wait_until of run.sh)
wait_loaded() { wait_until 600 holds_progs "$1" "$2"; }

# load_target OUT [ARGS]: a target in the background, held until killed
# (however long the tests of it take under TCG); its id in $tid, pid in $tpid
load_target() {
	out=$1
	shift
	: >"$out"
	"$STAT_PROG" "$@" -s 3600 >"$out" &
	tpid=$!
	wait_until 600 grep -q '^id ' "$out"
	tid=$(awk '$1 == "id" { print $2; exit }' "$out")
}

echo "# stat: -b --trampoline needs BPF trampolines, which this kernel allows (the host's refuses them)"
if [ ! -x "$STAT_PROG" ]; then
	fail "stat: setup" "$STAT_PROG is missing"
	return 0 2>/dev/null || exit 1
fi

# --- -b: exact runs, cost per run, both ways --------------------------------
load_target "$st/t1.out"
t1=$tid p1=$tpid
for how in "run time stats" "--trampoline" "--trampoline, page-faults"; do
	case $how in
	"run time stats") opts="-e cpu-clock" ;;
	"--trampoline") opts="-e cpu-clock --trampoline" ;;
	*) opts="-e cpu-clock,page-faults" ;;
	esac
	# shellcheck disable=SC2086 # $opts: several options
	"$BPFREC" stat -b "$t1" $opts --json -- "$STAT_PROG" -i "$t1" -r 1000 -k 100 \
		>"$st/b1.json" 2>"$st/b1.err"
	rc=$?
	grep '"event":"cpu-clock"' "$st/b1.json" >"$st/b1.clock"
	runs=$(field runs "$st/b1.clock")
	val=$(field value "$st/b1.clock")
	per=$(field metric "$st/b1.clock")
	result "stat -b ($how): a target run 1000 times shows exactly 1000 runs" \
		"$([ "$rc" -eq 0 ] && [ "$runs" = 1000 ] || echo "exit $rc, runs '$runs': $(head -c 300 "$st/b1.err")")"
	result "stat -b ($how): cpu-clock per run > 0" \
		"$(awk -v v="$val" -v p="$per" 'BEGIN { if (!(v > 0 && p > 0)) print "value " v ", per run " p }')"
	result "stat -b ($how): the target's BTF name" \
		"$(grep -q "\"who\":\"prog $t1 stat_target_with_a_long_name\"" "$st/b1.clock" || echo "not in: $(head -c 300 "$st/b1.json")")"
done
# software events are read without their times: the session's are given
result "stat -b (--trampoline, page-faults): enabled = running > 0, as perf stat gives them" \
	"$(grep '"event":"page-faults"' "$st/b1.json" | awk -F'[:,]' '{
		for (i = 1; i < NF; i++) { if ($i == "\"enabled\"") e = $(i + 1); if ($i == "\"running\"") r = $(i + 1) }
		if (!(e > 0 && e == r)) print "enabled " e ", running " r } END { if (NR != 1) print NR " page-faults lines" }')"

# --- -b: two targets at once, intervals --------------------------------------
load_target "$st/t2.out"
t2=$tid p2=$tpid
"$BPFREC" stat -b "$t1,$t2" -e cpu-clock,task-clock --trampoline -I 100 --json -- \
	sh -c "'$STAT_PROG' -i $t1 -r 300 -k 100 && '$STAT_PROG' -i $t2 -r 500 -k 100" \
	>"$st/b2.json" 2>"$st/b2.err"
rc=$?
grep "\"who\":\"prog $t1 " "$st/b2.json" | grep '"event":"cpu-clock"' >"$st/b2.t1"
grep "\"who\":\"prog $t2 " "$st/b2.json" | grep '"event":"cpu-clock"' >"$st/b2.t2"
r1=$(sum runs "$st/b2.t1")
r2=$(sum runs "$st/b2.t2")
result "stat -b --trampoline two targets -I: 300 and 500 runs over the intervals" \
	"$([ "$rc" -eq 0 ] && [ "$r1" = 300 ] && [ "$r2" = 500 ] || echo "exit $rc, runs $r1 and $r2: $(head -c 300 "$st/b2.err")")"
result "stat -b --trampoline: two events per target per interval" \
	"$(n1=$(grep -c "\"who\":\"prog $t1 " "$st/b2.json"); n2=$(grep -c '"event":"task-clock"' "$st/b2.json");
	   [ "$n1" -gt 0 ] && [ $((n1 % 2)) -eq 0 ] && [ "$n2" -eq "$n1" ] || echo "$n1 lines for $t1, $n2 task-clock lines")"

# --- -b: text output ---------------------------------------------------------
"$BPFREC" stat -b "$t1" -- "$STAT_PROG" -i "$t1" -r 200 -k 100 >"$st/b3.out" 2>&1
result "stat -b: perf stat's block with the runs" \
	"$(grep -q "Performance counter stats for prog $t1 stat_target_with_a_long_name, 200 runs:" "$st/b3.out" &&
	   grep -Eq '^ +[0-9]+\.[0-9]+ msec cpu-clock +# +[0-9]+\.[0-9]+ ns/run' "$st/b3.out" ||
	   echo "not in: $(head -c 400 "$st/b3.out")")"
kill "$p1" "$p2" 2>/dev/null
wait "$p1" "$p2" 2>/dev/null

# --- -b: refusals ------------------------------------------------------------
load_target "$st/nobtf.out" -n
"$BPFREC" stat -b "$tid" --trampoline 1 >/dev/null 2>"$st/nobtf.err"
rc=$?
result "stat -b --trampoline: a target without BTF: one line, exit 1" \
	"$([ "$rc" -eq 1 ] && [ "$(cat "$st/nobtf.err")" = "bpfrec stat: -b: program $tid (stat_no_btf) has no BTF: fentry/fexit need its function's BTF to attach" ] ||
	   echo "exit $rc: $(cat "$st/nobtf.err")")"
kill "$tpid" 2>/dev/null
wait "$tpid" 2>/dev/null
"$BPFREC" stat -b 4000000000 1 >/dev/null 2>"$st/noid.err"
rc=$?
result "stat -b: an id that is no program: one line, exit 1" \
	"$([ "$rc" -eq 1 ] && [ "$(cat "$st/noid.err")" = "bpfrec stat: -b: no BPF program with id 4000000000" ] ||
	   echo "exit $rc: $(cat "$st/noid.err")")"

# a tracing program (-b's own fentry) cannot be a target
load_target "$st/t3.out"
# Long enough to outlive the two commands below on the debug kernel (KASAN under TCG);
# killed once they are done. The target serves the -o test too, which stops it.
"$BPFREC" stat -b "$tid" --trampoline 3600 >/dev/null 2>&1 &
b3=$!
wait_loaded $b3 2
"$BPFREC" stat --all-progs --idle --json 1 >"$st/tr.json" 2>&1
trid=$(grep '"name":"on_entry"' "$st/tr.json" | grep -v '"state":"[a-z,]*freed"' | sed -n 's/.*"id":\([0-9]*\),.*"type":"tracing".*/\1/p' | head -n 1)
"$BPFREC" stat -b "${trid:-0}" --trampoline 1 >/dev/null 2>"$st/tr.err"
rc=$?
result "stat -b --trampoline: a tracing program as target: one line, exit 1" \
	"$([ "$rc" -eq 1 ] && [ "$(cat "$st/tr.err")" = "bpfrec stat: -b: program $trid (on_entry) is a tracing program: fentry/fexit cannot attach to another one" ] ||
	   echo "exit $rc, id '$trid': $(cat "$st/tr.err")")"
kill "$b3" 2>/dev/null
wait "$b3" 2>/dev/null

# -o: the counts in a perf.data file that bpfrec report reads
"$BPFREC" stat -b "$tid" -I 200 -o "$st/b.data" -- "$STAT_PROG" -i "$tid" -r 400 -k 100 \
	>/dev/null 2>"$st/bo.err"
rc=$?
"$BPFREC" report -i "$st/b.data" >"$st/bo.report" 2>&1
rc2=$?
result "stat -b -o: the file is written and bpfrec report reads it" \
	"$([ "$rc" -eq 0 ] && [ -s "$st/b.data" ] && [ "$rc2" -eq 0 ] || echo "exit $rc and $rc2: $(head -c 200 "$st/bo.err") $(head -c 200 "$st/bo.report")")"
kill "$tpid" 2>/dev/null
wait "$tpid" 2>/dev/null

# --- --all-progs here too ------------------------------------------------------
"$BPFREC" stat --all-progs --json -- "$STAT_PROG" -r 777 >"$st/ap.json" 2>"$st/ap.err"
rc=$?
id=$(awk '$1 == "id" { print $2; exit }' "$st/ap.json")
line=$(grep "\"id\":$id," "$st/ap.json")
result "stat --all-progs: a program loaded, run 777 times and freed" \
	"$(echo "$line" | grep -q '"runs":777,.*"loader_comm":"stat-prog","state":"new,freed"' || echo "exit $rc, id $id: $line $(head -c 200 "$st/ap.err")")"

# --- --bpf-counters: shared leaders, followers with filters ------------------
ncpu=$(grep -c '^processor' /proc/cpuinfo)

# A session's cpu-clock is checked against plain perf events (perf-count)
# that counted a window inside the session's and a window around it: the
# same per-CPU clock as the session's events.  Dividing the count by the
# session's wall time instead compares two clocks, and a TCG guest marks
# its TSCs unsynchronized: on a loaded host its cpu-clock and its
# CLOCK_MONOTONIC drift apart by tens of % (2.56 "CPUs utilized" of 2 was
# seen beside a kernel build).  The windows do not depend on any clock.

# plain NAME ARGS: a plain perf event (perf-count ARGS) counting from now
# until plain_stop; its pid in $plain_pid, its total later in $st/NAME.out
plain() {
	_name=$1
	shift
	taskset 1 "$PERF_COUNT" -e cpu-clock "$@" >"$st/$_name.out" &
	plain_pid=$!
	wait_for "$st/$_name.out" '^ready'
}
# plain_stop PID NAME: stop plain event PID and print its total
plain_stop() {
	kill -INT "$1"
	bounded_wait 300 "$1"
	awk '$1 == "count" { print $2 }' "$st/$2.out"
}
# session_in ARGS: a session (stat --bpf-counters --json ARGS) in the
# background, counting once its base is taken (it waits in its main loop);
# its pid in $session_pid
session_in() {
	_out=$1
	shift
	"$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e cpu-clock --json "$@" 3600 \
		>"$st/$_out.json" 2>"$st/$_out.err" &
	session_pid=$!
	wait_until 600 in_loop $session_pid
}
# bracketed VALUE INNER OUTER PCT: empty when the session's VALUE lies
# between INNER (a window inside the session's, less PCT %) and OUTER (a
# window around it, plus 1 % for the last reads), else why not
bracketed() {
	awk -v v="$1" -v i="$2" -v o="$3" -v p="$4" 'BEGIN {
		if (v == "" || i == "" || o == "" || i <= 0 || v < i * (1 - p / 100) || v > o * 1.01)
			print "count " v " is not between " i " (a window inside the session, less " p " %) and " o " (a window around it)" }'
}

# the wait_for of run.sh's wait_until, needed by plain
wait_for() { wait_until 600 grep -q "$2" "$1"; }

# no bpffs: the default registry's filesystem is mounted, and said so
umount /sys/fs/bpf 2>/dev/null
plain outer -a
po=$plain_pid
"$BPFREC" stat --bpf-counters -e cpu-clock --json 3600 >"$st/nofs.json" 2>"$st/nofs.err" &
nofs=$!
wait_until 600 in_loop $nofs
plain inner -a
sleep 1
vi=$(plain_stop $plain_pid inner)
kill -INT $nofs
bounded_wait 300 $nofs
rc=$?
vo=$(plain_stop $po outer)
# (the registry there goes with the session)
result "--bpf-counters without a bpffs: mounts one on /sys/fs/bpf, says so, counts every CPU" \
	"$([ "$rc" -eq 0 ] && [ "$(cat "$st/nofs.err")" = "bpfrec stat: mounted a BPF filesystem on /sys/fs/bpf" ] &&
	   grep -q ' /sys/fs/bpf bpf ' /proc/mounts && [ ! -e /sys/fs/bpf/bpfrec_stat/registry ] ||
	   echo "exit $rc: $(cat "$st/nofs.err")")$(bracketed "$(field counter "$st/nofs.json")" "$vi" "$vo" 1)"
rm -rf /sys/fs/bpf/bpfrec_stat

reg=/sys/fs/bpf/bpfrec_stat_test
rm -rf "$reg"
# owns_events PID: the session PID opened the perf events (one per CPU)
owns_events() { [ "$(perf_fds "$1")" -eq "$ncpu" ]; }
# reuses_leader PID: the session PID found the leader and watches its owner's pidfd
reuses_leader() { ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'anon_inode:\[pidfd\]'; }
# The first session owns the events before the second starts; the inner
# window counts while both do.  Both count every CPU: each lies between
# the inner and the outer window.
plain outer -a
po=$plain_pid
session_in c1 -a
c1=$session_pid
session_in c2 -a
c2=$session_pid
plain inner -a
f1=$(perf_fds $c1) f2=$(perf_fds $c2) r2=$(reuses_leader $c2 && echo yes)
sleep 2
vi=$(plain_stop $plain_pid inner)
kill -INT $c2
bounded_wait 300 $c2
rc2=$?
kill -INT $c1
bounded_wait 300 $c1
rc1=$?
vo=$(plain_stop $po outer)
result "--bpf-counters: two sessions exit 0" \
	"$([ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] || echo "exit $rc1, $rc2: $(head -c 200 "$st/c1.err") $(head -c 200 "$st/c2.err")")"
result "--bpf-counters: one perf event per CPU for both sessions ($ncpu CPUs)" \
	"$([ "$f1" -eq "$ncpu" ] && [ "$f2" -eq 0 ] && [ "$r2" = yes ] || echo "first holds $f1, second $f2 (reusing the leader: '$r2')")"
result "--bpf-counters -a: the first session counts every CPU (within 1 % of plain perf events)" \
	"$(bracketed "$(field counter "$st/c1.json")" "$vi" "$vo" 1)"
result "--bpf-counters -a: the second session, reusing the leader, counts every CPU (within 1 %)" \
	"$(bracketed "$(field counter "$st/c2.json")" "$vi" "$vo" 1)"

# the first session goes away: the second takes its perf events over at
# once (it watches the first's pidfd), not at its next reading (it has none
# before the end: no -I).  The inner window counts on after the takeover at
# least 3 s longer than before it: a session that lost what came after
# would count less than half of it.  The takeover itself takes a moment
# without counts, hence 25 %.
plain outer -a
po=$plain_pid
"$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e cpu-clock -a 3600 >/dev/null 2>&1 &
c1=$!
wait_until 600 owns_events $c1
session_in c3 -a
c2=$session_pid
plain inner -a
pi=$plain_pid
t0=$(cut -d. -f1 /proc/uptime)
f2before=$(perf_fds $c2)
kill -INT $c1
bounded_wait 300 $c1
# at once, woken by the owner's exit: without that it would take them
# over at its next reading, which is at Ctrl-C
wait_until 600 owns_events $c2
f2=$(perf_fds $c2)
sleep $(($(cut -d. -f1 /proc/uptime) - t0 + 3))
vi=$(plain_stop $pi inner)
kill -INT $c2
bounded_wait 300 $c2
rc=$?
vo=$(plain_stop $po outer)
result "--bpf-counters: killing the first session does not break the second: it takes the perf events over, counts on" \
	"$([ $rc -eq 0 ] && [ "$f2before" -eq 0 ] && [ "$f2" -eq "$ncpu" ] || echo "exit $rc, it held $f2before perf events, then $f2: $(head -c 200 "$st/c3.err")")$(bracketed "$(field counter "$st/c3.json")" "$vi" "$vo" 25)"

# the registry goes with its last session, unless that one is killed: its
# entry is then stale, and the next session repairs it
"$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e cpu-clock -a 3600 >/dev/null 2>&1 &
c1=$!
wait_until 600 owns_events $c1
kill -KILL $c1
wait $c1 2>/dev/null
stale=$([ -e "$reg/registry" ] && echo yes)
plain outer -C 0
po=$plain_pid
session_in c4 -C 0
c4=$session_pid
plain inner -C 0
sleep 1
vi=$(plain_stop $plain_pid inner)
kill -INT $c4
bounded_wait 300 $c4
rc=$?
vo=$(plain_stop $po outer)
result "--bpf-counters: a stale registry entry is repaired; -C 0 counts CPU 0 alone (within 1 %)" \
	"$([ "$stale" = yes ] && [ $rc -eq 0 ] || echo "registry left: '$stale', exit $rc: $(head -c 200 "$st/c4.err")")$(bracketed "$(field counter "$st/c4.json")" "$vi" "$vo" 1)"


# all_perf_fds: perf event fds held by every process of the guest
all_perf_fds() {
	ls -l /proc/[0-9]*/fd 2>/dev/null | grep -c 'perf_event'
}

# The spinner's busy thread runs on CPU 1 alone, the sessions on CPU 0: the
# thread then gets a whole CPU whatever the sessions do.
taskset 2 "$SPINNER" >"$st/sp.out" &
sp=$!
wait_for "$st/sp.out" '^pid '
spid=$(awk '{ print $2 }' "$st/sp.out")
stid=$(awk '{ print $4 }' "$st/sp.out")

# Two sessions and a plain perf event count the same thread, stopped while
# the sessions start and end: the same window for all three.  (The process,
# -p, counts a little more: its idle main thread runs at each stop and
# continue; the busy/idle tests below cover -p.)
kill -STOP "$sp"
taskset 1 "$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e cpu-clock -t "$stid" -I 100 --json \
	>"$st/s1.json" 2>"$st/s1.err" &
s1=$!
taskset 1 "$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e cpu-clock -t "$stid" -I 300 --json \
	>"$st/s2.json" 2>"$st/s2.err" &
s2=$!
taskset 1 "$PERF_COUNT" -e cpu-clock -p "$stid" >"$st/pc.out" &
pc=$!
wait_for "$st/s1.json" counter && wait_for "$st/s2.json" counter && wait_for "$st/pc.out" '^ready'
f1=$(perf_fds $s1) f2=$(perf_fds $s2) fall=$(all_perf_fds)
kill -CONT "$sp"
sleep 2
kill -STOP "$sp"
sleep 0.5
kill -INT $s1 $s2 $pc
bounded_wait 300 $s1
rc1=$?
bounded_wait 300 $s2
rc2=$?
bounded_wait 300 $pc
n1=$(sum counter "$st/s1.json")
n2=$(sum counter "$st/s2.json")
np=$(awk '$1 == "count" { print $2 }' "$st/pc.out")
result "--bpf-counters: two sessions (-I 100, -I 300) exit 0 at Ctrl-C" \
	"$([ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] || echo "exit $rc1, $rc2: $(head -c 200 "$st/s1.err") $(head -c 200 "$st/s2.err")")"
result "--bpf-counters: while both count, one perf event per CPU for them ($ncpu), plus the plain one" \
	"$([ $((f1 + f2)) -eq "$ncpu" ] && [ "$fall" -eq $((ncpu + 1)) ] || echo "sessions hold $f1 and $f2, the guest $fall")"
result "--bpf-counters: the thread ran (the plain perf event counts more than 1 s of 2)" \
	"$([ "${np:-0}" -gt 1000000000 ] || echo "plain count '$np'")"
result "--bpf-counters -t: the first session's cpu-clock within 1 % of a plain perf event's" "$(near "$n1" "$np" 1)"
result "--bpf-counters -t: the second session's cpu-clock within 1 % of a plain perf event's" "$(near "$n2" "$np" 1)"
result "--bpf-counters: the two sessions agree within 1 %" "$(near "$n2" "$n1" 1)"
kill -CONT "$sp"

# A busy thread and an idle one, a busy process and an idle one, under the
# thread (-t) and process (-p) filters, four sessions at once, against
# plain perf events on the busy thread: a window inside the sessions' and
# one around them.  A session that outlives them owns the perf events: the
# takeover has its test above.
taskset 1 "$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e cpu-clock,page-faults -a 600 \
	>/dev/null 2>&1 &
anchor=$!
wait_loaded $anchor 2
sleep 3600 &
idle=$!
plain outer -p "$stid"
po=$plain_pid
sessions=
for f in "p $spid pbusy" "t $stid tbusy" "t $spid tidle" "p $idle pidle"; do
	set -- $f
	taskset 1 "$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e cpu-clock -$1 $2 --json 3600 \
		>"$st/$3.json" 2>"$st/$3.err" &
	sessions="$sessions $!"
done
for p in $sessions; do
	wait_until 600 in_loop $p
done
plain inner -p "$stid"
sleep 2
vi=$(plain_stop $plain_pid inner)
kill -INT $sessions
bounded_wait 300 $sessions
vo=$(plain_stop $po outer)
kill $idle
wait $idle 2>/dev/null
for f in "pbusy -p:_the_process_with_a_busy_thread busy" "tbusy -t:_the_busy_thread busy" \
	 "tidle -t:_the_idle_main_thread idle" "pidle -p:_an_idle_process idle"; do
	set -- $f
	v=$(field counter "$st/$1.json")
	if [ $3 = busy ]; then
		result "--bpf-counters $(echo "$2" | tr _ ' ') counts the busy thread's time (within 1 % of plain perf events)" \
			"$(bracketed "$v" "$vi" "$vo" 1)$([ -n "$v" ] || head -c 200 "$st/$1.err")"
	else
		result "--bpf-counters $(echo "$2" | tr _ ' ') counts almost nothing (under 2 % of the busy thread's time)" \
			"$(awk -v v="$v" -v i="$vi" -v e="$(head -c 200 "$st/$1.err")" 'BEGIN {
				if (v == "" || i == "" || v > i * 0.02) print "count " v " of the busy thread'"'"'s " i " " e }')"
	fi
done
kill -9 "$sp" 2>/dev/null
wait "$sp" 2>/dev/null

# A busy CPU and an idle one under the CPU filter (-C): page faults, since
# a CPU's cpu-clock runs whether it is busy or idle.  CPU 1 forks and
# execs without a pause, CPU 0 (the sessions, this script) does little.
# The idle CPU's session starts once the busy one's is loaded: loading
# faults pages on CPU 0 too.
taskset 2 sh -c 'while :; do /bin/true; done' &
forker=$!
taskset 1 "$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e page-faults -C 1 --json 4 \
	>"$st/cbusy.json" 2>"$st/cbusy.err" &
cb=$!
wait_loaded $cb 1
taskset 1 "$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e page-faults -C 0 --json 2 \
	>"$st/cidle.json" 2>"$st/cidle.err"
bounded_wait 300 $cb
kill $forker $anchor
wait $forker $anchor 2>/dev/null
vb=$(field counter "$st/cbusy.json")
vi=$(field counter "$st/cidle.json")
result "--bpf-counters -C: the busy CPU's page faults at least 10 times the idle CPU's" \
	"$(awk -v b="$vb" -v i="$vi" -v e="$(head -c 200 "$st/cbusy.err") $(head -c 200 "$st/cidle.err")" \
		'BEGIN { if (b == "" || i == "" || b < 100 || b < 10 * i) print "busy CPU " b ", idle CPU " i ": " e }')"

# busy and idle processes in cgroups (-G)
sh -c 'while :; do :; done' &
busy=$!
sleep 3600 &
idle=$!
if [ -d /sys/fs/cgroup ] && mkdir -p /sys/fs/cgroup/bpfrec-busy /sys/fs/cgroup/bpfrec-idle 2>/dev/null; then
	echo $busy >/sys/fs/cgroup/bpfrec-busy/cgroup.procs
	echo $idle >/sys/fs/cgroup/bpfrec-idle/cgroup.procs
	"$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e cpu-clock -G bpfrec-busy,bpfrec-idle \
		--json 2 >"$st/g.json" 2>"$st/g.err"
	gb=$(grep '"who":"bpfrec-busy"' "$st/g.json" | sed -n 's/.*"metric":\([0-9.]*\).*/\1/p')
	gi=$(grep '"who":"bpfrec-idle"' "$st/g.json" | sed -n 's/.*"metric":\([0-9.]*\).*/\1/p')
	result "--bpf-counters -G: the busy cgroup about one CPU, the idle one almost nothing" \
		"$(awk -v b="$gb" -v i="$gi" -v e="$(head -c 200 "$st/g.err")" \
			'BEGIN { if (!(b > 0.8 && b < 1.05 && i != "" && i < 0.02)) print "busy " b ", idle " i ": " e }')"
else
	skip "--bpf-counters -G" "no cgroup2 at /sys/fs/cgroup"
fi
kill $busy $idle 2>/dev/null
wait $busy $idle 2>/dev/null
rm -rf "$reg"
