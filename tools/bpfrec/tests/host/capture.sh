#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the in-kernel capture of `bpfrec record`: every path this
# kernel offers (--capture=auto|fentry|syscall|off), what record says of
# it, its hooks firing for bpf() alone, and the self-check.  Root.
#
#   BPFREC=path/to/bpfrec STORM=path/to/storm tests/host/capture.sh
#
# Needs python3 and bpftool.  The capture is also loaded here relocated
# against each kernel built in $KERNELS (the guests' kernels), as far as
# the host can tell whether those kernels would take it.  Last line: "N passed, N failed[, N skipped]".
set -u

here=$(cd "$(dirname "$0")" && pwd)
BPFREC=${BPFREC:-$here/../../bpfrec}
STORM=${STORM:-$here/../../.output/storm}
CORE_CHECK=${CORE_CHECK:-$here/../../.output/core-check}
CAPTURE_OBJ=${CAPTURE_OBJ:-$here/../../.output/bpf_skel/capture.bpf.o}
# the kernels scripts/build-kernel.sh built, one directory each
KERNELS=${KERNELS:-${BPFREC_CACHE:-/var/cache/bpfrec}/build}
N=500

. "$here/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "capture tests need root" >&2; exit 1; }
for t in "$BPFREC" "$STORM"; do
	[ -x "$t" ] || { echo "missing $t: run 'make' first" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/bpfrec-capture.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# the one line that says what is recorded, on this (stock) kernel, by path
n=$(nproc)
lacks="not maps, links or BTF: kernel lacks bpf_obj_event, which records them"
captured="maps, links and BTF from the capture, their records written by bpfrec (kernel lacks bpf_obj_event)"
syscall_line="bpfrec record: recording BPF programs on $n CPUs, described as they load (the bpf() syscall tracepoints); $captured"
fentry_line="bpfrec record: recording BPF programs on $n CPUs, described as they load (fentry); $captured"
off_line="bpfrec record: recording BPF programs on $n CPUs, resolved by id afterwards (short-lived ones stay unresolved); $lacks"

# said NAME STATUS LINE ARGS...: `bpfrec record ARGS` exits STATUS, saying LINE alone
said() {
	local name=$1 want=$2 line=$3 rc
	shift 3
	"$BPFREC" record "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq "$want" ] && [ "$(cat "$tmp/err")" = "$line" ]; then
		pass "$name"
	else
		fail "$name" "exit $rc: $(tr '\n' ' ' <"$tmp/err")"
	fi
}

# What auto picks here tells whether the kernel takes trampolines.
"$BPFREC" record -o "$tmp/auto.data" --duration 1 >/dev/null 2>"$tmp/auto.err"
rc=$?
line=$(sed -n 1p "$tmp/auto.err")
if [ $rc -eq 0 ] && [ "$line" = "$syscall_line" ]; then
	pass "auto: record says it captures by the bpf() tracepoints (trampolines refused)"
	paths="syscall off"
elif [ $rc -eq 0 ] && [ "$line" = "$fentry_line" ]; then
	pass "auto: record says it captures by fentry"
	paths="fentry syscall off"
else
	fail "auto: record says which capture path it uses" "exit $rc, line 2: $line"
	paths="syscall off"
fi

# The syscall path's price is said at start, measured, with the way out;
# the fentry path and no capture cost other syscalls nothing, and say none.
cost_re='getppid\(\) [0-9]+ ns -> [0-9]+ ns \([-+][0-9]+ %\)$'
auto_cost="bpfrec record: cost: the kernel refuses BPF trampolines, so --capture=auto chose the bpf() syscall tracepoints, which slow every syscall on the machine while recording: "
forced_cost="bpfrec record: cost: the bpf() syscall tracepoints slow every syscall on the machine while recording: "
way_out="bpfrec record: --capture=off avoids that cost; short-lived programs then stay unresolved, and maps, links and BTF are not recorded"
# cost_said NAME FILE [PREFIX]: FILE says the cost as PREFIX then the way out, or (no PREFIX) nothing of it
cost_said() {
	local name=$1 err=$2 prefix=${3:-} line
	line=$(grep -n '^bpfrec record: cost: ' "$err")
	if [ -z "$prefix" ]; then
		if [ -z "$line" ] && ! grep -q 'avoids that cost' "$err"; then
			pass "$name"
		else
			fail "$name" "$(tr '\n' ' ' <"$err")"
		fi
		return
	fi
	if [ "$(printf '%s\n' "$line" | wc -l)" = 1 ] &&
	   [ "${line#*:}" != "${line#*:"$prefix"}" ] &&
	   printf '%s\n' "${line#*:"$prefix"}" | grep -Eq "^$cost_re" &&
	   [ "$(sed -n "$((${line%%:*} + 1))p" "$err")" = "$way_out" ]; then
		pass "$name"
	else
		fail "$name" "$(tr '\n' ' ' <"$err")"
	fi
}
case $paths in
fentry*) cost_said "auto by fentry: no cost said" "$tmp/auto.err" ;;
*) cost_said "auto by the syscall path: its cost said at start, measured, with the way out" \
	"$tmp/auto.err" "$auto_cost" ;;
esac

# Forced fentry where the kernel refuses trampolines: one clear line, exit 1.
case $paths in
fentry*)
	skip "--capture=fentry refused" "this kernel takes trampolines" ;;
*)
	said "--capture=fentry: the kernel's refusal said in one line, exit 1" 1 \
		"bpfrec record: --capture=fentry: the kernel refuses BPF trampolines (Operation not permitted); try --capture=syscall" \
		--capture=fentry -o "$tmp/f.data" --duration 1 ;;
esac

# A user with CAP_PERFMON and CAP_BPF who may not read tracefs (root's
# alone by default): auto records on without the capture, and says why.
if command -v setpriv >/dev/null && [ "$(stat -c %a /sys/kernel/tracing)" = 700 ]; then
	mkdir "$tmp/caps" && chmod 777 "$tmp/caps"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+perfmon,+bpf \
		--ambient-caps=-all,+perfmon,+bpf \
		"$BPFREC" record -o "$tmp/caps/caps.data" --duration 1 >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && [ "$(head -n 1 "$tmp/err")" = "bpfrec record: capture off: the bpf() tracepoints' ids are in /sys/kernel/tracing, unreadable to this user (give read access or run as root)" ]; then
		pass "tracefs unreadable: capture off, said why, recorded"
	else
		fail "tracefs unreadable: capture off, said why" "exit $rc: $(tr '\n' ' ' <"$tmp/err")"
	fi
else
	skip "tracefs unreadable: capture off, said why" "setpriv missing, or tracefs is not root's alone"
fi

said "--capture=sometimes: exit 2, one line" 2 \
	"bpfrec record: --capture wants auto, fentry, syscall or off, not 'sometimes' (see bpfrec record --help)" \
	--capture=sometimes -o "$tmp/x.data" --duration 1

# A storm under every path: with a capture, every program named exactly
# (they live microseconds); off, every load recorded and said so.
for path in $paths; do
	"$BPFREC" record --capture=$path -o "$tmp/$path.data" -- \
		"$STORM" -n $N -p cap$path -l "$tmp/$path.list" >/dev/null 2>"$tmp/$path.err"
	rc=$?
	"$BPFREC" script -i "$tmp/$path.data" --json >"$tmp/$path.json" 2>/dev/null
	python3 - "$tmp/$path.list" "$tmp/$path.json" >"$tmp/$path.check" <<'PY'
import json, sys
want = {int(l.split()[0]): l.split()[1] for l in open(sys.argv[1])}
loads = [json.loads(l) for l in open(sys.argv[2]) if '"PROG_LOAD"' in l]
got = {e["id"]: e.get("name") for e in loads if e["id"] in want}
print(len(got), sum(got[i] == want[i] for i in got))
PY
	read -r recorded named <"$tmp/$path.check"
	eval want_line=\$${path}_line
	if [ $path = off ]; then
		ok=$([ "$recorded" -eq $N ] && echo 1)
	else
		ok=$([ "$recorded" -eq $N ] && [ "$named" -eq $N ] && echo 1)
	fi
	if [ $rc -eq 0 ] && [ "$ok" = 1 ] && [ "$(sed -n 1p "$tmp/$path.err")" = "$want_line" ] &&
	   ! grep -q 'without captured facts' "$tmp/$path.err"; then
		pass "--capture=$path: storm of $N recorded, $named named, and said"
	else
		fail "--capture=$path: storm of $N" \
			"exit $rc, $recorded recorded, $named named: $(tr '\n' ' ' <"$tmp/$path.err")"
	fi
done

cost_said "--capture=syscall: its cost said at start, as asked for" "$tmp/syscall.err" "$forced_cost"
cost_said "--capture=off: no cost said" "$tmp/off.err"
"$BPFREC" record -q -o "$tmp/q.data" --duration 1 >/dev/null 2>"$tmp/q.err"
cost_said "-q: no cost said" "$tmp/q.err"

# The syscall path's programs run for bpf() alone, not for every syscall
# of the machine: over 500000 getppid() calls, their run count (BPF stats,
# enabled by an fd held meanwhile) grows by no more than the bpf() calls
# of the machine meanwhile (other tests make a hundred thousand a second),
# which a counter of raw_syscalls:sys_exit tells.
cat >"$tmp/runs.py" <<'PY'
import ctypes, json, os, struct, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
attr = ctypes.create_string_buffer(b"\0" * 8)		# BPF_STATS_RUN_TIME
stats = libc.syscall(321, 32, attr, 8)			# BPF_ENABLE_STATS
if stats < 0:
    sys.exit("BPF_ENABLE_STATS: " + os.strerror(ctypes.get_errno()))
pid = int(sys.argv[1])

def prog_ids():					# the recorder's programs, by its fds
    ids = []
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            if os.readlink("/proc/%d/fd/%s" % (pid, fd)) != "anon_inode:bpf-prog":
                continue
            info = open("/proc/%d/fdinfo/%s" % (pid, fd)).read()
        except OSError:
            continue
        ids += [int(l.split()[1]) for l in info.splitlines() if l.startswith("prog_id:")]
    return ids

def runs():
    out = {}
    for i in prog_ids():
        p = json.loads(subprocess.run(["bpftool", "-j", "prog", "show", "id", str(i)],
                                      capture_output=True, text=True).stdout)
        out[p["name"]] = p.get("run_cnt", 0)
    return out

# the bpf() calls of the machine: raw_syscalls:sys_exit counted per CPU,
# filtered on bpf's number (the perf events of syscalls:sys_exit_bpf would
# miss the calls for which the capture's program there returns 0)
tp = int(open("/sys/kernel/tracing/events/raw_syscalls/sys_exit/id").read())
tattr = ctypes.create_string_buffer(struct.pack("<IIQ", 2, 64, tp).ljust(64, b"\0"))
counters = []
for cpu in range(os.cpu_count()):
    fd = libc.syscall(298, tattr, -1, cpu, -1, 0)	# perf_event_open
    if fd < 0 or libc.ioctl(fd, 0x40082406, ctypes.c_char_p(b"id == 321")) < 0:	# SET_FILTER
        sys.exit("raw_syscalls:sys_exit counter: " + os.strerror(ctypes.get_errno()))
    counters.append(fd)

def bpf_calls():
    return sum(struct.unpack("<Q", os.read(fd, 8))[0] for fd in counters)

c0 = bpf_calls()
before = runs()
for _ in range(500000):
    libc.syscall(110)					# getppid
after = runs()
calls = bpf_calls() - c0
exits = after.get("prog_exit", 0) - before.get("prog_exit", 0)
# run for every syscall, it would run 500000 times more than bpf() was called
print("ok" if "prog_exit" in before and exits - calls < 250000 else
      "prog_exit ran %d times for 500000 getppid() and %d bpf() calls (programs: %s)" %
      (exits, calls, sorted(before)))
PY
if command -v bpftool >/dev/null; then
	: >"$tmp/runs.err"
	"$BPFREC" record --capture=syscall -o "$tmp/runs.data" >/dev/null 2>"$tmp/runs.err" &
	rec=$!
	i=0
	while ! grep -q '^bpfrec record: recording' "$tmp/runs.err" && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	python3 "$tmp/runs.py" $rec >"$tmp/runs.check" 2>&1
	kill -INT $rec
	wait $rec
	if [ "$(cat "$tmp/runs.check")" = ok ]; then
		pass "--capture=syscall: the hooks run for bpf() only, not for every syscall"
	else
		fail "--capture=syscall: the hooks run for bpf() only" "$(cat "$tmp/runs.check")"
	fi
else
	skip "--capture=syscall: the hooks run for bpf() only" "bpftool missing"
fi

# The self-check: a program loaded by a BPF program (bpf_sys_bpf() from a
# syscall program, as light skeletons load theirs) passes no bpf()
# tracepoint: its record comes without captured facts, which record warns
# of at once and counts at the end.
cat >"$tmp/lskel.py" <<'PY'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(attr)
    r = libc.syscall(321, cmd, buf, len(attr))
    if r < 0:
        sys.exit("bpf(%d): %s" % (cmd, os.strerror(ctypes.get_errno())))
    return r, buf

def st(size, off, imm):				# *(size *)(r10 + off) = imm
    return struct.pack("<BBhi", {8: 0x7a, 4: 0x62}[size], 0x0a, off, imm)

def word(s, i):
    return struct.unpack_from("<i", s.ljust(12, b"\0"), i)[0]

def insn(code, regs, off, imm):
    return struct.pack("<BBhi", code, regs, off, imm)

code = [st(8, off, 0) for off in range(-96, 0, 8)]
code += [st(8, -16, 0xb7), st(8, -8, 0x95)]	# its insns: r0 = 0; exit
code += [st(4, -24, word(b"GPL", 0))]		# its license
code += [st(4, -96, 1), st(4, -92, 2)]		# the attr: socket filter, 2 insns,
code += [st(4, -48 + i, word(b"lskel_prog", i)) for i in (0, 4, 8)]	# its name
code += [
    insn(0xbf, 0xa1, 0, 0),			# r1 = r10
    insn(0x07, 0x01, 0, -16),			# r1 += -16
    insn(0x7b, 0x1a, -88, 0),			# attr.insns = r1
    insn(0x07, 0x01, 0, -8),			# r1 += -8
    insn(0x7b, 0x1a, -80, 0),			# attr.license = r1
    insn(0xbf, 0xa2, 0, 0),			# r2 = r10
    insn(0x07, 0x02, 0, -96),			# r2 += -96: the attr
    insn(0xb7, 0x01, 0, 5),			# r1 = BPF_PROG_LOAD
    insn(0xb7, 0x03, 0, 72),			# r3 = sizeof(attr)
    insn(0x85, 0x00, 0, 166),			# call bpf_sys_bpf
    insn(0x95, 0x00, 0, 0),			# exit
]
insns = ctypes.create_string_buffer(b"".join(code))
lic = ctypes.create_string_buffer(b"GPL")
# BPF_PROG_TYPE_SYSCALL, sleepable, as light skeletons load theirs
prog, _ = bpf(5, struct.pack("<IIQQIIQII16s", 31, len(code), ctypes.addressof(insns),
                             ctypes.addressof(lic), 0, 0, 0, 0, 1 << 4,
                             b"lskel").ljust(128, b"\0"))
_, out = bpf(10, struct.pack("<I", prog).ljust(80, b"\0"))	# BPF_PROG_TEST_RUN
fd = struct.unpack_from("<i", out.raw, 4)[0]
info = ctypes.create_string_buffer(256)
bpf(15, struct.pack("<IIQ", fd, 256, ctypes.addressof(info)))	# BPF_OBJ_GET_INFO_BY_FD
print(struct.unpack_from("<I", info.raw, 4)[0], flush=True)	# its id
sys.stdin.read()
PY
case $paths in
*syscall*)
	"$BPFREC" record --capture=syscall -o "$tmp/lskel.data" -- \
		sh -c 'sleep 0.5 | python3 "$1" >"$2"' sh "$tmp/lskel.py" "$tmp/lskel.id" \
		>/dev/null 2>"$tmp/lskel.err"
	rc=$?
	id=$(cat "$tmp/lskel.id")
	if [ $rc -eq 0 ] && [ -n "$id" ] &&
	   grep -qx "bpfrec record: warning: the capture has no facts of program $id, resolved by id instead; counts at the end" "$tmp/lskel.err" &&
	   [ "$(grep -c 'warning: the capture' "$tmp/lskel.err")" -eq 1 ] &&
	   grep -qx 'bpfrec record: records without captured facts: 1 program (resolved by id, if still there)' "$tmp/lskel.err"; then
		pass "self-check: a program loaded by a BPF program is warned of once and counted"
	else
		fail "self-check: a program loaded by a BPF program" \
			"exit $rc, id ${id:-none}: $(tr '\n' ' ' <"$tmp/lskel.err")"
	fi ;;
*)
	skip "self-check" "no syscall path here" ;;
esac

# Every kind of the capture relocates and verifies against the BTF of this
# kernel and of each guest kernel built here: a field or type one of them
# lacks, read where the program can reach it, refuses the kind on that
# kernel (6.1 has no struct bpf_struct_ops_link).  The syscall path only:
# the host may refuse trampolines; the fentry programs share its readers.
# Each kind relocates alike against the part of the BTF the recorder hands
# libbpf (util/core_btf.c) and against the whole.
guests=$(ls "$KERNELS"/*/vmlinux 2>/dev/null)
kernels=$guests
[ -r /sys/kernel/btf/vmlinux ] && kernels="/sys/kernel/btf/vmlinux $kernels"
if [ ! -x "$CORE_CHECK" ] || [ ! -f "$CAPTURE_OBJ" ]; then
	fail "the capture on each kernel" "missing $CORE_CHECK or $CAPTURE_OBJ: run 'make host-test'"
else
	[ -n "$guests" ] ||
		skip "the capture on each guest kernel" "no kernel built in $KERNELS (scripts/build-kernel.sh)"
	for k in $kernels; do
		base=$(basename "$(dirname "$k")")
		[ "$k" = /sys/kernel/btf/vmlinux ] && base="this kernel"
		out=$("$CORE_CHECK" "$CAPTURE_OBJ" "$k" 2>&1)
		rc=$?
		if [ $rc -eq 0 ] && [ "$(echo $out)" = "prog ok map ok link ok btf ok" ]; then
			pass "the capture relocates and verifies with $base's BTF, every kind, alike with the part the recorder uses"
		else
			fail "the capture relocates and verifies with $base's BTF" \
				"exit $rc: $(echo "$out" | grep -v ' ok$' | tr '\n' ' ')"
		fi
	done
fi

if [ $skipped -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ $failed -eq 0 ]
