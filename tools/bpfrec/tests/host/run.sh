#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of `bpfrec record`: run as root on the host kernel.
#
#   BPFREC=path/to/bpfrec STORM=path/to/storm tests/host/run.sh [-n N]
#
# -n N: programs in the storm (default 2000).  Needs python3 (to read
# `bpfrec script --json`) and /usr/bin/perf (Linux perf, to read our files).
# Last line: "N passed, N failed, N skipped"; exit 1 if anything failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
BPFREC=${BPFREC:-$here/../../bpfrec}
STORM=${STORM:-$here/../../.output/storm}
PERF=${PERF:-/usr/bin/perf}
N=2000
[ "${1:-}" = -n ] && N=$2

. "$here/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "host tests need root (they record system-wide)" >&2
	exit 1
fi
for t in "$BPFREC" "$STORM"; do
	[ -x "$t" ] || { echo "missing $t: run 'make' first" >&2; exit 1; }
done

# Nothing here needs them, but the tools around us do: mount and say so.
mount_if_missing() {
	mountpoint -q "$2" && return
	if mount -t "$1" "$1" "$2" 2>/dev/null; then
		echo "note: mounted $1 on $2"
	else
		echo "note: $1 is not mounted on $2 and mounting failed"
	fi
}
mount_if_missing bpf /sys/fs/bpf
mount_if_missing debugfs /sys/kernel/debug
mount_if_missing tracefs /sys/kernel/tracing

tmp=$(mktemp -d /tmp/bpfrec-host.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# The python loaders below (in $tmp, so they import it) load a socket
# filter "r0 = 0; exit" with the raw bpf() syscall: no libbpf needed.
cat >"$tmp/bpfload.py" <<'EOF'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def load_prog():
    insns = ctypes.create_string_buffer(struct.pack("<BBhiBBhi", 0xb7, 0, 0, 0, 0x95, 0, 0, 0))
    lic = ctypes.create_string_buffer(b"GPL")
    attr = ctypes.create_string_buffer(struct.pack("<IIQQ", 1, 2, ctypes.addressof(insns),
                                                   ctypes.addressof(lic)).ljust(128, b"\0"))
    fd = libc.syscall(321, 5, attr, 128)		# bpf(BPF_PROG_LOAD)
    if fd < 0:
        sys.exit("BPF_PROG_LOAD: " + os.strerror(ctypes.get_errno()))
    return fd
EOF

# started PID: the recorder PID waits in its main loop, epoll_wait (232 on
# x86-64: nothing before the loop calls it), so its events are enabled and
# the objects that existed are listed; or it is gone.  Its first lines come
# before that.
in_loop() {
	local nr

	[ ! -d "/proc/$1" ] || { read -r nr _ <"/proc/$1/syscall" && [ "$nr" = 232 ]; } 2>/dev/null
}
started() { wait_until 60 in_loop "$1"; }

# Rings that hold a storm and what other tests load meanwhile (16 MiB a
# CPU), for the tests of exact counts: the default ring loses records when
# the recorder is starved of CPU (4322 lost in a storm of 2000, at nice 19
# beside four busy loops).  The losses have their own test below.
BIG_RING="-m 4096"

# check_usage NAME EXPECTED_STATUS ARGS...: status and exactly one line on stderr
check_one_line() {
	local name=$1 want=$2 rc lines
	shift 2
	"$BPFREC" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -ne "$want" ]; then
		fail "$name" "exit $rc, want $want ($(head -c 200 "$tmp/err"))"
	elif [ "$lines" -ne 1 ]; then
		fail "$name" "$lines lines on stderr, want 1"
	else
		pass "$name"
	fi
}

check_one_line "unknown event exits 2" 2 record -e no-such-event -o "$tmp/x.data"
check_one_line "unknown option exits 2" 2 record --no-such-option
check_one_line "bad -m exits 2" 2 record -m 3 -o "$tmp/x.data"
check_one_line "bad --duration exits 2" 2 record --duration soon -o "$tmp/x.data"
check_one_line "unknown command exits 2" 2 recrod
check_one_line "unwritable output exits 1" 1 record -o /nonexistent/dir/x.data --duration 1
# -o -: perf's pipe mode on stdout, once the recording ends; no file named -
"$BPFREC" record -o - --duration 1 2>"$tmp/err" | "$BPFREC" script -i - --json >"$tmp/pipe.json" 2>>"$tmp/err"
result "-o -: a pipe-mode stream script reads, no file named -" \
	"$(grep -q '"event":"PROG_LOAD"' "$tmp/pipe.json" || echo "no PROG_LOAD: $(head -c 200 "$tmp/err")")$(
	   [ -e ./- ] && echo " a file named - exists")"

"$BPFREC" record --help >"$tmp/out" 2>&1 && grep -q EXAMPLES "$tmp/out" &&
	pass "record --help" || fail "record --help"
"$BPFREC" --version >"$tmp/out" 2>&1 && grep -q '^bpfrec ' "$tmp/out" &&
	pass "--version" || fail "--version"

# Not root: one clear line, exit 1.
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$BPFREC" record -o "$tmp/nobody.data" --duration 1 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	   grep -qiE 'permission|root|CAP_' "$tmp/err"; then
		pass "not root exits 1 with one clear line"
	else
		fail "not root exits 1 with one clear line" "exit $rc: $(cat "$tmp/err")"
	fi
else
	skip "not root" "setpriv missing"
fi

# With CAP_PERFMON and CAP_BPF only, as the permission message asks: no
# snapshot of the objects that existed before (listing ids needs
# CAP_SYS_ADMIN), said in one line, and the recording goes on.  The
# capture's bpf() tracepoints need read access to tracefs, which such a
# user is given the way perf's perf-security document says (its group):
# here nobody's, for the time of the test.
if command -v setpriv >/dev/null; then
	mkdir "$tmp/caps" && chmod 777 "$tmp/caps"
	mount -o remount,gid=65534,mode=750 /sys/kernel/tracing
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+perfmon,+bpf \
		--ambient-caps=-all,+perfmon,+bpf \
		"$BPFREC" record -o "$tmp/caps/caps.data" >/dev/null 2>"$tmp/err" &
	pid=$!
	started $pid
	"$STORM" -n 20 -p caps -l "$tmp/caps.list"
	kill -INT $pid
	wait $pid
	rc=$?
	mount -o remount,gid=0,mode=700 /sys/kernel/tracing
	# the storm's, by id: another worktree's may run meanwhile
	named=$("$BPFREC" script -i "$tmp/caps/caps.data" --json 2>/dev/null | python3 -c '
import json, sys
want = {int(l.split()[0]): l.split()[1] for l in open(sys.argv[1])}
print(sum(1 for l in sys.stdin if "\"PROG_LOAD\"" in l and want.get(json.loads(l)["id"]) == json.loads(l).get("name")))' "$tmp/caps.list")
	if [ $rc -eq 130 ] && [ "$named" -eq 20 ] &&
	   grep -qx 'bpfrec record: without CAP_SYS_ADMIN, the BPF objects that existed before the recording are not listed' "$tmp/err"; then
		pass "CAP_PERFMON and CAP_BPF: recorded without the snapshot, and said"
	else
		fail "CAP_PERFMON and CAP_BPF: recorded without the snapshot" \
			"exit $rc, $named of 20 loads named: $(tr '\n' ' ' <"$tmp/err")"
	fi
else
	skip "CAP_PERFMON and CAP_BPF only" "setpriv missing"
fi

# A perf.data file both Linux perf and bpfrec read without complaint.
valid_file() {
	local f=$1
	[ -s "$f" ] || return 1
	"$PERF" script --show-bpf-events -i "$f" >"$tmp/perf.out" 2>"$tmp/perf.err" || return 1
	"$BPFREC" script -i "$f" >/dev/null 2>"$tmp/script.err" || return 1
	! grep -qi warn "$tmp/perf.err" "$tmp/script.err"
}

# -- CMD: the workload's exit status comes back, the file is valid.
"$BPFREC" record -o "$tmp/cmd.data" -- sh -c 'exit 7' >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 7 ] && grep -q 'exited with status 7' "$tmp/err" && valid_file "$tmp/cmd.data"; then
	pass "-- CMD exit status"
else
	fail "-- CMD exit status" "exit $rc: $(tail -1 "$tmp/err")"
fi
"$BPFREC" record -o "$tmp/cmd.data" -- /nonexistent-cmd >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 127 ] && pass "-- CMD not found: 127" || fail "-- CMD not found: 127" "exit $rc"
# every line of record is its own, the workload's failure too
result "-- CMD not found: said by 'bpfrec record:' as every line" "$(
	grep -qx 'bpfrec record: cannot run /nonexistent-cmd: No such file or directory' "$tmp/err" ||
		echo "no line of the command"
	grep -v '^bpfrec record: ' "$tmp/err" | head -1)"

"$BPFREC" record -o "$tmp/dur.data" --duration 1 >/dev/null 2>"$tmp/err" &&
	valid_file "$tmp/dur.data" && pass "--duration" || fail "--duration" "$(cat "$tmp/err")"

# One line at start says what is recorded: with bpf_obj_event on every
# online CPU, without it programs only, and says so.
first=$(head -n 1 "$tmp/err")
case "$first" in
"bpfrec record: recording BPF programs, maps, links and BTF on $(nproc) CPU"*|\
"bpfrec record: recording BPF programs on $(nproc) CPU"*"; not maps, links or BTF: kernel lacks bpf_obj_event, which records them"|\
"bpfrec record: recording BPF programs on $(nproc) CPU"*"; maps, links and BTF from the capture, their records written by bpfrec (kernel lacks bpf_obj_event)")
	pass "record says what it records" ;;
*)	fail "record says what it records" "first line: $first" ;;
esac

# A signal to stop: the file is finished and the exit status says which
# signal came (128 + its number), as a shell would.
signum() { kill -l "$1"; }
for sig in INT TERM; do
	"$BPFREC" record $BIG_RING -o "$tmp/sig.data" 2>"$tmp/err" &
	pid=$!
	started $pid
	"$STORM" -n 50 -p sig
	kill -$sig $pid
	wait $pid
	rc=$?
	if [ $rc -eq $((128 + $(signum $sig))) ] && valid_file "$tmp/sig.data" &&
	   [ "$(grep -c 'PERF_RECORD_BPF_EVENT type 1,' "$tmp/perf.out")" -ge 50 ] &&
	   [ "$(tail -1 "$tmp/err")" = "bpfrec record: stopped by SIG$sig" ]; then
		pass "SIG$sig gives a valid file, exit $rc"
	else
		fail "SIG$sig gives a valid file" "exit $rc: $(tail -1 "$tmp/err")"
	fi
done

# The same signals (and SIGHUP, like SIGTERM) sent to bpfrec alone, not
# its process group: the workload gets SIGTERM at once, as perf sends it,
# and the recording ends with it, not with the hour-long sleep it left
# behind.  (A loaded machine may take half a minute to finish the file:
# the sleep is what the recording must not wait for, not a time.)
for sig in INT TERM HUP; do
	rm -f "$tmp/sigw.ready" "$tmp/sigw.data"
	"$BPFREC" record $BIG_RING -o "$tmp/sigw.data" -- sh -c \
		'trap "echo got TERM >&2; exit 3" TERM
		 "$1" -n 20 -p sigw -l "$3"; sleep 3600 & echo $! >"$2"; wait' \
		sh "$STORM" "$tmp/sigw.ready" "$tmp/sigw.list" >/dev/null 2>"$tmp/err" &
	pid=$!
	wait_until 60 test -s "$tmp/sigw.ready"
	t0=$(date +%s%N)
	kill -$sig $pid
	# a recorder that waited for the sleep is killed after 10 minutes
	sleep 600 >/dev/null 2>&1 </dev/null &
	dog=$!
	wait -n -p first $pid $dog
	rc=$?
	if [ "$first" = "$dog" ]; then
		kill -KILL $pid
		wait $pid
		rc=$?
	else
		kill $dog
	fi
	ms=$((($(date +%s%N) - t0) / 1000000))
	kill "$(cat "$tmp/sigw.ready")"
	valid_file "$tmp/sigw.data"
	# the storm's, by id: another worktree's storm may run meanwhile
	loads=$(sed -n 's/^ *storm .*PERF_RECORD_BPF_EVENT type 1, flags 0, id \([0-9]*\)$/\1/p' \
		"$tmp/perf.out" | sort -u | comm -12 - <(cut -d' ' -f1 "$tmp/sigw.list" | sort -u) | wc -l)
	if [ $rc -eq $((128 + $(signum $sig))) ] && [ "$loads" -eq 20 ] &&
	   grep -qx 'got TERM' "$tmp/err" && grep -qx 'bpfrec record: sh exited with status 3' "$tmp/err" &&
	   [ "$(tail -1 "$tmp/err")" = "bpfrec record: stopped by SIG$sig" ]; then
		pass "SIG$sig to bpfrec alone: workload sent SIGTERM, file finished, exit $rc (in $ms ms)"
	else
		fail "SIG$sig to bpfrec alone" \
			"exit $rc after $ms ms, $loads of 20 loads: $(tr '\n' ' ' <"$tmp/err")"
	fi
done

# Two recorders at once, and perf beside them: on a stock kernel the
# listener opened first gets KSYMBOL and BPF_EVENT records sized for every
# listener's sample_id, their own right after the body and the rest stale.
# Both files must be exact: every load of the storm by the storm's pid, on
# a CPU of this machine, within a few seconds; the repairs said; and perf's
# file, read by bpfrec, exact too.
rm -f "$tmp/two-a.err"
"$BPFREC" record $BIG_RING -o "$tmp/two-a.data" 2>"$tmp/two-a.err" &
a=$!
started $a
"$PERF" record -q $BIG_RING -e dummy -a -o "$tmp/two-p.data" -- \
	"$BPFREC" record $BIG_RING -o "$tmp/two-b.data" -- "$STORM" -n 500 -p two -l "$tmp/two.list" \
	>/dev/null 2>"$tmp/two-b.err"
kill -INT $a
wait $a
exact_storm() {
	python3 - "$tmp/two.list" "$1" "$2" <<'PY'
import json, os, sys
ids = {int(l.split()[0]) for l in open(sys.argv[1])}
ncpu = os.cpu_count()
loads = [json.loads(l) for l in open(sys.argv[2]) if '"PROG_LOAD"' in l]
mine = [e for e in loads if e["id"] in ids]
pids = {e["pid"] for e in mine}
t = [e["time"] for e in mine]
bad = [e["id"] for e in mine if e.get("comm") != "storm" or not 0 <= e["cpu"] < ncpu]
span = max(t) - min(t) if t else -1
open(sys.argv[3], "w").write(" ".join(str(p) for p in pids) + "\n")
print("ok" if len(mine) == len(ids) == 500 and len(pids) == 1 and not bad and 0 <= span < 120
      else "%d of %d loads, pids %s, %d wrong, span %.0f s" % (len(mine), len(ids),
                                                                sorted(pids)[:3], len(bad), span))
PY
}
for f in two-a two-b two-p; do
	"$BPFREC" script -i "$tmp/$f.data" --json >"$tmp/$f.json" 2>"$tmp/$f.script.err"
	exact_storm "$tmp/$f.json" "$tmp/$f.pids" >"$tmp/$f.check"
	# perf reads our repaired files right (its own it cannot)
	[ $f = two-p ] || "$PERF" script --show-bpf-events -i "$tmp/$f.data" 2>/dev/null |
		grep -c "^ *storm *$(cut -d' ' -f1 "$tmp/$f.pids") .*PERF_RECORD_BPF_EVENT type 1," \
		>"$tmp/$f.perf"
	if [ "$(cat "$tmp/$f.check")" = ok ] && { [ $f = two-p ] || [ "$(cat "$tmp/$f.perf")" -eq 500 ]; }; then
		pass "two recorders and perf at once: $f.data exact"
	else
		fail "two recorders and perf at once: $f.data exact" "$(cat "$tmp/$f.check")"
	fi
done
# the host runs a stock kernel: the first listener's records need repair
repaired=$(sed -n 's/^bpfrec record: \([0-9]*\) oversized side-band records repaired.*/\1/p' \
	"$tmp/two-a.err" "$tmp/two-b.err" | awk '{ s += $1 } END { print s + 0 }')
read_fixes=$(sed -n 's/.* \([0-9]*\) oversized side-band records repaired.*/\1/p' \
	"$tmp/two-p.script.err")
if [ "$repaired" -gt 0 ] && [ "${read_fixes:-0}" -gt 0 ]; then
	pass "oversized records repaired and said: $repaired recording, $read_fixes reading perf's file"
else
	fail "oversized records repaired and said" "$repaired, ${read_fixes:-0} in perf's file"
fi

# After the workload exits, the recording goes on until the objects it
# created are released, for at most 1 s: its program, held by a child it
# left behind, is unloaded 300 ms after the recorder reaped the workload
# (recorded), or 3 s after (not waited for, and said).  The child counts
# from the reaping, not from its fork: a loaded machine may reap late.
cat >"$tmp/leave.py" <<'PY'
import os, sys, time
from bpfload import load_prog
fd = load_prog()
parent = os.getpid()
open(sys.argv[2], "w").write("%d\n" % parent)
if os.fork() == 0:
    os.setsid()
    while os.path.exists("/proc/%d" % parent):	# a zombie until reaped
        time.sleep(0.01)
    time.sleep(float(sys.argv[1]) / 1000)		# the child holds the fd
    os._exit(0)
PY
for hold in 300 3000; do
	t0=$(date +%s%N)
	"$BPFREC" record -o "$tmp/linger.data" -- python3 "$tmp/leave.py" $hold "$tmp/leave.pid" \
		>/dev/null 2>"$tmp/err"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	"$PERF" script --show-bpf-events -i "$tmp/linger.data" >"$tmp/perf.out" 2>/dev/null
	# the workload's, by pid: another worktree's python3 may load one meanwhile
	lpid=$(cat "$tmp/leave.pid")
	loads=$(grep -c "^ *python3 *$lpid .*PERF_RECORD_BPF_EVENT type 1," "$tmp/perf.out")
	id=$(sed -n "s/^ *python3 *$lpid .*PERF_RECORD_BPF_EVENT type 1, flags 0, id \([0-9]*\)\$/\1/p" \
		"$tmp/perf.out" | head -1)
	unloads=$(grep -c "PERF_RECORD_BPF_EVENT type 2, flags 0, id ${id:-none}\$" "$tmp/perf.out")
	if [ $hold -eq 300 ] && [ $rc -eq 0 ] && [ $loads -eq 1 ] && [ $unloads -eq 1 ] &&
	   ! grep -q 'still alive' "$tmp/err"; then
		pass "a release $hold ms after the workload was reaped is recorded (in $ms ms)"
	elif [ $hold -eq 3000 ] && [ $rc -eq 0 ] && [ $loads -eq 1 ] && [ $unloads -eq 0 ] &&
	     grep -qx 'bpfrec record: 1 object of python3 still alive 1000 ms after it exited' "$tmp/err"; then
		pass "a release later than 1 s is not waited for, and said (in $ms ms)"
	else
		fail "a release $hold ms after the workload was reaped" \
			"exit $rc in $ms ms, $loads loads, $unloads unloads: $(tail -2 "$tmp/err" | tr '\n' ' ')"
	fi
done

# Objects existing at start: synthesised (the first recorder's own programs,
# alive until the second recorder is done).
"$BPFREC" record -o "$tmp/first.data" 2>/dev/null &
first=$!
started $first
"$BPFREC" record -o "$tmp/second.data" --duration 1 2>/dev/null
kill -INT $first
wait $first
if "$BPFREC" script -i "$tmp/second.data" --json 2>/dev/null |
   grep '"PROG_LOAD"' | grep -q synthesised; then
	pass "existing programs synthesised"
else
	fail "existing programs synthesised"
fi

# The recorder's own objects are marked self; the first recorder's, which
# existed at start like any program, are not.
python3 - "$tmp/second.data" "$BPFREC" >"$tmp/self.check" <<'EOF'
import json, subprocess, sys
out = subprocess.run([sys.argv[2], "script", "-i", sys.argv[1], "--json"],
                     capture_output=True, text=True).stdout
own = {k + "_" + h for k in ("prog", "map", "link", "btf") for h in ("fentry", "enter", "exit")}
own.add("btf_fexit")
loads = [json.loads(l) for l in out.splitlines() if '"PROG_LOAD"' in l]
mine = [e for e in loads if e["details"].get("self")]
other = [e for e in loads if not e["details"].get("self") and e.get("name") in own]
bad = [e["id"] for e in mine if e.get("name") not in own or not e["details"].get("synthesised")]
print("ok" if mine and other and not bad else
      "self %d, first recorder's %d, wrong %s" % (len(mine), len(other), bad))
EOF
if [ "$(cat "$tmp/self.check")" = ok ] &&
   "$BPFREC" report -i "$tmp/second.data" 2>/dev/null | grep -q '^  bpfrec (self) also alive: [1-9]'; then
	pass "the recorder's own objects marked self, the other recorder's not"
else
	fail "the recorder's own objects marked self" "$(cat "$tmp/self.check")"
fi

# Start-up: the vmlinux BTF is opened once to know whether the kernel has
# attr.bpf_obj_event, once for the load of the capture (copied for libbpf:
# every kind at once), plus, when the kernel takes trampolines, once to
# pick their hooks and once by libbpf to attach them; a kernel that
# refuses trampolines is found out without a load.
if command -v strace >/dev/null; then
	strace -f -e trace=openat -o "$tmp/strace.out" \
		"$BPFREC" record -o "$tmp/start.data" --duration 1 >/dev/null 2>&1
	reads=$(grep -c '"/sys/kernel/btf/vmlinux"' "$tmp/strace.out")
	# the capture's own programs tell which hooks were loaded
	if "$BPFREC" script -i "$tmp/start.data" --json 2>/dev/null |
	   grep '"PROG_LOAD"' | grep '"self"' | grep -q '"prog_exit"'; then
		want=2
	else
		want=4
	fi
	[ "$reads" -eq "$want" ] && pass "start-up reads the vmlinux BTF $want time(s)" ||
		fail "start-up reads the vmlinux BTF $want time(s)" "$reads reads"
else
	skip "start-up reads of the vmlinux BTF" "strace missing"
fi

# A task with no COMM record in the recording (it neither execs nor
# renames itself then) is named from /proc while it lives: Linux perf
# shows the name too.
cat >"$tmp/loader.py" <<'EOF'
import os, sys
from bpfload import libc, load_prog
libc.prctl(15, b"bpfrec-named", 0, 0, 0)		# PR_SET_NAME
print("ready", flush=True)
sys.stdin.readline()
fd = load_prog()
os.close(fd)
print("done", flush=True)
sys.stdin.readline()		# lives on, like a kernel thread, until EOF
EOF
mkfifo "$tmp/ctl"
python3 "$tmp/loader.py" <"$tmp/ctl" >"$tmp/loader.out" 2>&1 &
loader=$!
exec 3>"$tmp/ctl"
wait_until 60 grep -q ready "$tmp/loader.out"
"$BPFREC" record -o "$tmp/named.data" -- sh -c '
	echo go >&3
	i=0
	while ! grep -q done "$1" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done' \
	sh "$tmp/loader.out" >/dev/null 2>"$tmp/err"
exec 3>&-
wait $loader
"$PERF" script --show-bpf-events -i "$tmp/named.data" >"$tmp/perf.out" 2>/dev/null
n=$(grep -c "^ *bpfrec-named *$loader .*PERF_RECORD_BPF_EVENT" "$tmp/perf.out")
if grep -q done "$tmp/loader.out" && [ "$n" -eq 2 ]; then
	pass "a task without COMM record named from /proc (perf shows it)"
else
	fail "a task without COMM record named from /proc" \
		"$n of 2 BPF records of pid $loader named: $(tr '\n' ' ' <"$tmp/loader.out")"
fi

# The storm: every program with its name, type and tag, in bpfrec script,
# and in what perf shows of our file.
"$BPFREC" record $BIG_RING -o "$tmp/storm.data" -- "$STORM" -n "$N" -l "$tmp/storm.list" \
	>/dev/null 2>"$tmp/storm.err"
rc=$?
"$BPFREC" script -i "$tmp/storm.data" --json >"$tmp/storm.json" 2>"$tmp/storm.script.err"
python3 - "$tmp/storm.list" "$tmp/storm.json" >"$tmp/storm.check" <<'EOF'
import json, sys
types = {1: "socket_filter", 3: "sched_cls"}
want = {}
for line in open(sys.argv[1]):
    pid, name, typ, tag = line.split()
    want[int(pid)] = (name, types.get(int(typ), typ), tag)
got = {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    if r.get("event") == "PROG_LOAD" and r.get("id") in want:
        got[r["id"]] = (r.get("name"), r.get("type"), r.get("tag"))
bad = [i for i in want if got.get(i) != want[i]]
print(len(want), len(want) - len(bad), " ".join(str(i) for i in bad[:10]))
EOF
read -r total ok badids <"$tmp/storm.check"
if [ $rc -eq 0 ] && [ "$total" -eq "$N" ] && [ "$ok" -eq "$N" ]; then
	pass "storm of $N: every program has name, type and tag"
else
	fail "storm of $N: every program has name, type and tag" \
		"exit $rc, $ok/$total resolved, first missing: $badids"
fi

"$PERF" script --show-bpf-events -i "$tmp/storm.data" >"$tmp/perf.out" 2>"$tmp/perf.err"
rc=$?
loads=$(grep -c 'PERF_RECORD_BPF_EVENT type 1,' "$tmp/perf.out")
if [ $rc -eq 0 ] && [ "$loads" -ge "$N" ] && [ ! -s "$tmp/perf.err" ]; then
	pass "perf script --show-bpf-events reads our file ($loads loads)"
else
	fail "perf script --show-bpf-events reads our file" "exit $rc, $loads loads, $(head -2 "$tmp/perf.err")"
fi

"$PERF" report --header-only -i "$tmp/storm.data" >"$tmp/perf.out" 2>"$tmp/perf.err"
rc=$?
infos=$(grep -c '^# bpf_prog_info [0-9]*: bpf_prog_[0-9a-f]*_storm' "$tmp/perf.out")
if [ $rc -eq 0 ] && [ "$infos" -eq "$N" ] && ! grep -qi warn "$tmp/perf.out" "$tmp/perf.err"; then
	pass "perf report --header-only shows bpf_prog_info of all $N"
else
	fail "perf report --header-only shows bpf_prog_info" "exit $rc, $infos/$N, $(head -2 "$tmp/perf.err")"
fi

if grep -q LOST "$tmp/storm.err"; then
	fail "storm recorded without loss" "$(grep LOST "$tmp/storm.err")"
else
	pass "storm recorded without loss"
fi

# perf's own file of several events, a sampling one with callchains and
# a side-band one, read by bpfrec: every program of a storm run meanwhile,
# in the name of the storm (the sample_id of each record decoded as its
# event lays it out).
"$PERF" record -q -e cpu-clock,dummy -a -g -o "$tmp/perf-multi.data" -- \
	"$STORM" -n 200 -p pmulti -l "$tmp/pmulti.list" >/dev/null 2>"$tmp/perf-multi.err"
"$BPFREC" script -i "$tmp/perf-multi.data" >"$tmp/pmulti.out" 2>"$tmp/pmulti.err"
rc=$?
loads=$(awk 'NR == FNR { ids[$1] = 1; next } $4 == "storm" && $5 == "PROG_LOAD" && ($6 in ids)' \
	"$tmp/pmulti.list" "$tmp/pmulti.out" | wc -l)
if [ $rc -eq 0 ] && [ "$loads" -eq 200 ] && [ ! -s "$tmp/pmulti.err" ]; then
	pass "bpfrec script reads perf's cpu-clock + dummy file (200 loads)"
else
	fail "bpfrec script reads perf's cpu-clock + dummy file" \
		"exit $rc, $loads of 200 loads, $(head -2 "$tmp/pmulti.err")"
fi

# Programs the capture describes in full (no line info, arrays within its
# own) are not opened by id: an fd of the recorder would hold them, and
# their unload would happen in the recorder.  They live 100 us each here,
# so that a syscall would find them.
if command -v strace >/dev/null; then
	strace -f -e trace=bpf -o "$tmp/strace.out" "$BPFREC" record $BIG_RING -o "$tmp/kept.data" -- \
		"$STORM" -n 300 -k 100 -p kept -l "$tmp/kept.list" >/dev/null 2>&1
	sed -n 's/.*BPF_PROG_GET_FD_BY_ID, {prog_id=\([0-9]*\),.*/\1/p' "$tmp/strace.out" |
		sort -u >"$tmp/opened"
	cut -d' ' -f1 "$tmp/kept.list" | sort -u >"$tmp/kept.ids"
	opened=$(comm -12 "$tmp/opened" "$tmp/kept.ids" | wc -l)
	"$PERF" script --show-bpf-events -i "$tmp/kept.data" >"$tmp/perf.out" 2>/dev/null
	# of these programs: another worktree's storm may run meanwhile
	unloads=$(sed -n 's/^ *storm .*PERF_RECORD_BPF_EVENT type 2, flags 0, id \([0-9]*\)$/\1/p' \
		"$tmp/perf.out" | sort -u | comm -12 - "$tmp/kept.ids" | wc -l)
	if [ "$(wc -l <"$tmp/kept.ids")" -eq 300 ] && [ "$opened" -eq 0 ] &&
	   [ "$unloads" -eq 300 ]; then
		pass "fully captured programs are not opened; their loader unloads them"
	else
		fail "fully captured programs are not opened" \
			"$opened of 300 opened, $unloads of 300 unloads by the loader"
	fi
else
	skip "fully captured programs are not opened" "strace missing"
fi

# Losses are counted, reported on stderr and kept in the file: a one-page
# ring cannot hold a storm while the recorder is stopped.  (Left to run, a
# fast machine's recorder keeps up with the storm.)  The kernel writes
# the LOST record before the next record that fits in that CPU's ring:
# once the recorder has drained it (it woke and waits again), a few more
# programs are loaded on the same CPU.  Without them the loss would be
# said only if something else on the machine loaded a program meanwhile.
"$BPFREC" record -m 1 -o "$tmp/lost.data" 2>"$tmp/err" &
pid=$!
started $pid
kill -STOP $pid
taskset -c 0 "$STORM" -n 500 >/dev/null
sleeps() { awk '$1 == "voluntary_ctxt_switches:" { print $2 }' "/proc/$1/status"; }
slept=$(sleeps $pid)
drained() { [ "$(sleeps $pid)" -gt "$slept" ] && in_loop $pid; }
kill -CONT $pid
wait_until 60 drained
taskset -c 0 "$STORM" -n 10 >/dev/null
kill -INT $pid
wait $pid
rc=$?
if [ $rc -eq 130 ] && grep -q '^bpfrec record: LOST [1-9]' "$tmp/err" &&
   "$BPFREC" report -i "$tmp/lost.data" 2>/dev/null | grep -q 'lost records: [1-9]'; then
	pass "lost records reported and kept"
else
	fail "lost records reported and kept" "exit $rc: $(tail -2 "$tmp/err")"
fi

. "$here/durable.sh"

if [ $skipped -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ $failed -eq 0 ]
