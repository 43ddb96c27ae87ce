#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of `bpfrec record --object`: run as root on the host kernel.
#
#   BPFREC=path/to/bpfrec OBJS=path/to/.output tests/host/object.sh
#
# OBJS holds examples/*.bpf.o and tests/host/objects/*.bpf.o (make
# host-test builds them).  This kernel has tracepoints but no kprobes and
# refuses trampolines: kprobe/kretprobe and fentry/fexit sections are
# tested in the guest (tests/guest/object.sh), as the skip lines say.
# Last line: "object: N passed, N failed, N skipped"; exit 1 on failure.
set -u

here=$(cd "$(dirname "$0")" && pwd)
BPFREC=${BPFREC:-$here/../../bpfrec}
OBJS=${OBJS:-$here/../../.output}
PERF=${PERF:-/usr/bin/perf}
EXECS=$OBJS/examples/execs.bpf.o
LATENCY=$OBJS/examples/latency.bpf.o
T=$OBJS/tests/host/objects

. "$here/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "object tests need root" >&2
	exit 1
fi
for f in "$BPFREC" "$EXECS" "$LATENCY" "$T/reject_second.bpf.o" "$T/settable.bpf.o"; do
	[ -e "$f" ] || { echo "missing $f: run 'make host-test'" >&2; exit 1; }
done
command -v bpftool >/dev/null || { echo "bpftool missing" >&2; exit 1; }

tmp=$(mktemp -d /tmp/bpfrec-object.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# A true(1) of a comm nothing else on this machine runs: exact counts.
comm=bt$$
comm=${comm:0:15}
cp /bin/true "$tmp/$comm"


# Other processes may have objects of the same names (another worktree's
# host tests, bpfrec record --off-cpu's map "starts"): the objects of a
# test are those whose ids the kernel gave out since the previous check,
# up to the end of the test ("FIRST LAST" in $window, program ids then
# map ids, from newest_ids).
# newest_ids: "PROG_ID,MAP_ID", the newest of each that exists
newest_ids() {
	python3 - <<'PY'
import json, subprocess
def newest(kind):
    out = subprocess.run(["bpftool", "-j", kind, "show"], capture_output=True, text=True).stdout
    return max([o["id"] for o in json.loads(out or "[]")] + [0])
print("%d,%d" % (newest("prog"), newest("map")))
PY
}
window="$(newest_ids) -"

# left PROG... -- MAP...: the programs and maps of those names in $window
# that exist
left() {
	{
		python3 - $window "$@" <<'PY'
import json, subprocess, sys
first, last = ([int(i) for i in a.split(",")] for a in sys.argv[1:3])
names = sys.argv[3:] + ["--"]
want = {"prog": set(names[:names.index("--")]), "map": set(names[names.index("--") + 1:])}
for i, kind in enumerate(("prog", "map")):
    out = subprocess.run(["bpftool", "-j", kind, "show"], capture_output=True, text=True).stdout
    for o in json.loads(out or "[]"):
        if o.get("name") in want[kind] and first[i] < o["id"] <= last[i]:
            print("%s:%s" % (kind, o["name"]))
PY
		# libbpf names the tracefs probes it creates libbpf_<pid>_...: those
		# of a process that is gone were left behind
		cat /sys/kernel/tracing/kprobe_events /sys/kernel/tracing/uprobe_events 2>/dev/null |
			grep -o "libbpf_[0-9]*_[^ ]*" | while read -r probe; do
				p=${probe#libbpf_}
				[ -d "/proc/${p%%_*}" ] || echo "$probe"
			done
	} | tr -s ' \n' ' ' | sed 's/^ //; s/ $//'
}

# none_left PROG... -- MAP...: none of them exists
none_left() { [ -z "$(left "$@")" ]; }

# nothing_left NAME PROG... -- MAP...: none of the objects of the test
# exists, within 30 s: the kernel frees a program's maps after an RCU grace
# period, from a worker.
nothing_left() {
	local name=$1 l
	shift
	window="${window%% *} $(newest_ids)"
	wait_until 30 none_left "$@"
	l=$(left "$@")
	window="${window##* } -"
	if [ -z "$l" ]; then
		pass "$name: nothing left in bpftool and tracefs"
	else
		fail "$name: nothing left in bpftool and tracefs" "left: $l"
	fi
}

# bad_input NAME WANT_STATUS PATTERN ARGS...: status, one stderr line matching
bad_input() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$BPFREC" record -o "$tmp/bad.data" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne "$want" ]; then
		fail "$name" "exit $rc, want $want: $(head -3 "$tmp/err")"
	elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
		fail "$name" "$(wc -l <"$tmp/err") lines on stderr, want 1: $(head -3 "$tmp/err")"
	elif ! grep -q -- "$pat" "$tmp/err"; then
		fail "$name" "stderr lacks '$pat': $(cat "$tmp/err")"
	else
		pass "$name: exit $want, one line ($(cut -c1-90 "$tmp/err"))"
	fi
}

# load_fails NAME OBJECT PATTERN: recording with OBJECT exits 1, and
# stderr says PATTERN
load_fails() {
	local rc
	"$BPFREC" record --object "$2" -o "$tmp/fail.data" -- true >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q -- "$3" "$tmp/err"; then
		pass "$1: exit 1, $3"
	else
		fail "$1: exit 1, $3" "exit $rc: $(cat "$tmp/err")"
	fi
}

# ---- the exec example: N execs, N records with the right comm ----------

N=5
"$BPFREC" record --object "$EXECS" -o "$tmp/execs.data" -- \
	sh -c "i=0; while [ \$i -lt $N ]; do $tmp/$comm; i=\$((i + 1)); done" \
	>/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ]; then
	pass "record --object execs.bpf.o -- CMD: exit 0"
else
	fail "record --object execs.bpf.o -- CMD: exit 0" "exit $rc: $(tail -3 "$tmp/err")"
fi
# perf reads the file: every exec a bpf-output sample of the task named so
got=$("$PERF" script -i "$tmp/execs.data" 2>/dev/null |
	grep -ac "^ *$comm .* bpf-output:execs:")
if [ "$got" -eq $N ]; then
	pass "perf script: $N execs of $comm, $N bpf-output:execs samples"
else
	fail "perf script: $N execs of $comm, $N bpf-output:execs samples" "got $got"
fi
# bpfrec script decodes them with struct execs (named after the map)
"$BPFREC" script -i "$tmp/execs.data" >"$tmp/execs.txt" 2>"$tmp/err"
got=$(grep -c " bpf-output .* execs  *struct execs .* comm=$comm\$" "$tmp/execs.txt")
if [ "$got" -eq $N ]; then
	pass "bpfrec script: $N bpf-output lines decoded as struct execs, comm=$comm"
else
	fail "bpfrec script: $N bpf-output lines decoded as struct execs, comm=$comm" \
		"got $got: $(grep -m2 bpf-output "$tmp/execs.txt")"
fi
# the same in JSON: every field, the pid a number, the line's pid the record's
"$BPFREC" script -i "$tmp/execs.data" --json 2>/dev/null | python3 -c '
import json, sys
comm, n = sys.argv[1], int(sys.argv[2])
rows = [json.loads(l) for l in sys.stdin]
out = [r for r in rows if r["event"] == "bpf-output" and r["details"].get("comm") == comm]
ok = len(out) == n and all(r["type"] == "struct execs" and r["name"] == "execs" and
        r["details"]["pid"] == r["pid"] and r.get("comm") == comm for r in out)
sys.exit(0 if ok else 1)' "$comm" $N
if [ $? -eq 0 ]; then
	pass "bpfrec script --json: $N records, their pid the sample's, comm $comm"
else
	fail "bpfrec script --json: $N records, their pid the sample's, comm $comm"
fi
# the object's life is in the recording, marked as loaded for the user
loads=$(grep -c "PROG_LOAD .* count_exec .* user-object" "$tmp/execs.txt")
unloads=$(grep -c "PROG_UNLOAD .* count_exec .* user-object" "$tmp/execs.txt")
self=$(grep "count_exec" "$tmp/execs.txt" | grep -c "self")
if [ "$loads" -eq 1 ] && [ "$unloads" -eq 1 ] && [ "$self" -eq 0 ] &&
   grep -q " bpfrec  *PROG_LOAD  *[0-9]* count_exec " "$tmp/execs.txt"; then
	pass "lifecycle: count_exec loaded and unloaded by bpfrec, marked user-object, not self"
else
	fail "lifecycle: count_exec loaded and unloaded by bpfrec, marked user-object, not self" \
		"$loads loads, $unloads unloads, $self self"
fi
nothing_left "normal end" count_exec -- execs

# ---- a ring buffer, and --set values as the program saw them -------------

"$BPFREC" record --object "$T/settable.bpf.o" -o "$tmp/set.data" --set small=200 \
	--set signed_val=-7 --set big=0x100000000 --set flag=true --set mode=MODE_LOUD \
	--set tag=hello -- "$tmp/$comm" >/dev/null 2>"$tmp/err"
rc=$?
want="small=200 signed_val=-7 big=4294967296 flag=true mode=MODE_LOUD tag=hello folded=7 counter=[0-9]* comm=$comm"
got=$("$BPFREC" script -i "$tmp/set.data" 2>/dev/null | grep -c " ringbuf .* settings  *struct settings .* $want\$")
if [ $rc -eq 0 ] && [ "$got" -eq 1 ]; then
	pass "ring buffer: one ringbuf:settings record, every --set value seen by the program"
else
	fail "ring buffer: one ringbuf:settings record, every --set value seen by the program" \
		"exit $rc, $got lines: $("$BPFREC" script -i "$tmp/set.data" 2>&1 | grep -m2 ringbuf)"
fi
nothing_left "ring buffer object" report -- settings

# ---- cleanup on signals, without and with a workload ---------------------

# holds_prog PID NAME: process PID holds a program named NAME (another
# worktree's tests may load one of that name too)
holds_prog() {
	python3 - "$1" "$2" <<'PY'
import glob, json, subprocess, sys
pid, name = sys.argv[1:]
held = set()
for f in glob.glob("/proc/%s/fdinfo/*" % pid):
    try:
        held |= {int(l.split()[1]) for l in open(f) if l.startswith("prog_id:")}
    except (OSError, ValueError):
        pass
out = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True, text=True).stdout
sys.exit(0 if any(p.get("name") == name and p["id"] in held for p in json.loads(out or "[]")) else 1)
PY
}

for sig in INT TERM; do
	for cmd in "" "sleep 30"; do
		what="SIG$sig${cmd:+ with -- $cmd}"
		# shellcheck disable=SC2086
		"$BPFREC" record --object "$EXECS" -o "$tmp/sig.data" ${cmd:+-- $cmd} \
			>/dev/null 2>"$tmp/err" &
		pid=$!
		if ! wait_until 60 holds_prog $pid count_exec; then
			fail "$what: the object was loaded" "$(cat "$tmp/err")"
			kill -KILL $pid 2>/dev/null
			wait $pid 2>/dev/null
			continue
		fi
		kill -$sig $pid
		wait $pid
		rc=$?
		if grep -q "records, [0-9]* programs" "$tmp/err"; then
			pass "$what: the recording is finalised (exit $rc)"
		else
			fail "$what: the recording is finalised" "exit $rc: $(tail -2 "$tmp/err")"
		fi
		nothing_left "$what" count_exec -- execs
	done
done

# ---- a failing object: the second of two programs is rejected ----------

"$BPFREC" record --object "$T/reject_second.bpf.o" -o "$tmp/rej.data" -- true \
	>/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] &&
   grep -q "the verifier rejected program 'bad_second' (section 'tracepoint/sched/sched_process_exit')" "$tmp/err" &&
   grep -q "^  | invalid access to map value" "$tmp/err" &&
   ! grep -q "processed .* insns" "$tmp/err"; then
	pass "verifier reject: exit 1, the program named, the log's tail shown"
else
	fail "verifier reject: exit 1, the program named, the log's tail shown" \
		"exit $rc: $(cat "$tmp/err")"
fi
nothing_left "verifier reject" good_first bad_second -- hits

# ---- bad input: one line, exit 2, before anything is loaded --------------

bad_input "missing file" 2 "no-such.bpf.o: No such file or directory" \
	--object "$tmp/no-such.bpf.o" -- true
bad_input "not an ELF file" 2 "not an ELF file" --object /etc/passwd -- true
bad_input "unknown section" 2 "program 'lost': unknown section 'no_such_section/x'" \
	--object "$T/unknown_section.bpf.o" -- true
bad_input "object needing a newer libbpf" 2 \
	"section 'uprobe.multi//bin/true:main' needs libbpf >= 1.3, this is libbpf 1.1" \
	--object "$T/newer_libbpf.bpf.o" -- true
bad_input "section bpfrec cannot attach" 2 "bpfrec cannot attach section 'xdp'" \
	--object "$T/no_attach.bpf.o" -- true
bad_input "--set of a missing name" 2 "no global variable 'nosuch'" \
	--object "$T/settable.bpf.o" --set nosuch=1 -- true
bad_input "--set of a const, not volatile, name" 2 \
	"'folded' is const but not volatile" --object "$T/settable.bpf.o" --set folded=1 -- true
bad_input "--set out of range" 2 "'small' is a 1-byte unsigned integer (0..255)" \
	--object "$T/settable.bpf.o" --set small=256 -- true
bad_input "--set of a bool" 2 "'flag' is a bool" \
	--object "$T/settable.bpf.o" --set flag=maybe -- true
bad_input "--set string too long" 2 "'tag' holds at most 7 characters" \
	--object "$T/settable.bpf.o" --set tag=12345678 -- true
bad_input "--set without =" 2 "--set wants NAME=VALUE" \
	--object "$T/settable.bpf.o" --set small -- true
bad_input "--set without --object" 2 "--set needs --object" --set small=1 -- true

# a missing attach target is named, and what was loaded is gone again
load_fails "missing attach target" "$T/no_target.bpf.o" \
	"program 'nowhere': cannot attach to 'tracepoint/sched/no_such_tracepoint': no such target"
nothing_left "missing attach target" nowhere --

# ---- uprobe and uretprobe on libc --------------------------------------

if [ -e /lib/x86_64-linux-gnu/libc.so.6 ]; then
	# bash calls getppid() as it starts: a copy named $comm, started 3 times
	cp /bin/bash "$tmp/$comm"
	"$BPFREC" record --object "$T/uprobe.bpf.o" -o "$tmp/up.data" -- \
		sh -c "$tmp/$comm -c :; $tmp/$comm -c :; $tmp/$comm -c :" >/dev/null 2>"$tmp/err"
	rc=$?
	"$BPFREC" script -i "$tmp/up.data" >"$tmp/up.txt" 2>/dev/null
	enter=$(grep -c " bpf-output .* calls  *struct calls .* ret=0 comm=$comm\$" "$tmp/up.txt")
	leave=$(grep -c " bpf-output .* calls  *struct calls .* ret=1 comm=$comm\$" "$tmp/up.txt")
	if [ $rc -eq 0 ] && [ "$enter" -gt 0 ] && [ "$enter" -eq "$leave" ] &&
	   [ $((enter % 3)) -eq 0 ]; then
		pass "uprobe/uretprobe on libc getppid: $enter calls, $leave returns, 3 bash starts"
	else
		fail "uprobe/uretprobe on libc getppid" "exit $rc, $enter calls, $leave returns: $(head -2 "$tmp/err")"
	fi
	nothing_left "uprobe object" getppid_enter getppid_exit -- calls
	cp /bin/true "$tmp/$comm"
else
	skip "uprobe/uretprobe on libc getppid" "no /lib/x86_64-linux-gnu/libc.so.6"
fi

# ---- sections only the guest has: here they fail cleanly -----------------

# an error half-way: the hash and ring buffer maps and both programs were
# loaded when the kprobe could not be attached
load_fails "latency example on a kernel without kprobes" "$LATENCY" \
	"program 'sleep_enter': cannot attach to 'kprobe/hrtimer_nanosleep': this kernel has no kprobes"
nothing_left "latency example, failed attach" sleep_enter sleep_exit -- starts latency
skip "latency example: kprobe/kretprobe output" "this kernel has no kprobes: tested in the guest"

load_fails "fentry/fexit on a kernel refusing trampolines" "$T/trampoline.bpf.o" \
	"loading failed: prog 'enter': BPF program load failed"
nothing_left "fentry/fexit, failed load" enter leave --
skip "fentry/fexit: attached and run" "this kernel refuses trampolines: tested in the guest"

if [ $skipped -gt 0 ]; then
	echo "object: $passed passed, $failed failed, $skipped skipped"
else
	echo "object: $passed passed, $failed failed"
fi
[ $failed -eq 0 ]
