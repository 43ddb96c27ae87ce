#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of reading perf's files and of what `bpfrec script` shows:
# `perf record -z` files, pipe mode (a file, stdin, a FIFO), programs
# named from their KSYMBOL record, the width of the lines, filters,
# KSYMBOL lines folded, control characters escaped, and the help and error
# conventions every subcommand shares.  Root on the running kernel.
#
#   BPFREC=path/to/bpfrec STORM=path/to/storm tests/host/script.sh
#
# Needs /usr/bin/perf (Debian's perf 6.1 writes the files) and python3.
# Last line: "N passed, N failed, N skipped"; exit 1 if anything failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
BPFREC=${BPFREC:-$here/../../bpfrec}
STORM=${STORM:-$here/../../.output/storm}
PERF=${PERF:-/usr/bin/perf}
N=50

. "$here/lib.sh"
# check NAME CMD...: pass when CMD succeeds, else fail with its output
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$(echo "$out" | head -c 300)"; fi
}

if [ "$(id -u)" -ne 0 ]; then
	echo "host tests need root (they load BPF programs)" >&2
	exit 1
fi
for t in "$BPFREC" "$STORM"; do
	[ -x "$t" ] || { echo "missing $t: run 'make' first" >&2; exit 1; }
done

tmp=$(mktemp -d /tmp/bpfrec-script.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# compare.py TRUTH: the storm's programs (storm -l) against `script --json`
# on stdin, by program id: every one loaded exactly once, unloaded at most
# once (perf stops with its workload: a release the kernel defers to a
# worker may come after), and named as storm named it (from the prog info, or from the KSYMBOL record
# when perf had none).  Other processes' programs are ignored.
cat >"$tmp/compare.py" <<'EOF'
import json, sys
# stdin first: in a pipeline from perf record, the storm writes TRUTH as it
# ends, and stdin ends after that
events = [json.loads(line) for line in sys.stdin]
truth = {}
for line in open(sys.argv[1]):
    pid, name = line.split()[:2]
    truth[int(pid)] = name
check_names = len(sys.argv) > 2 and sys.argv[2] == "names"
loads, unloads, names = {}, {}, {}
for e in events:
    if e.get("id") not in truth:
        continue
    if e["event"] == "PROG_LOAD":
        loads[e["id"]] = loads.get(e["id"], 0) + 1
        names[e["id"]] = e.get("name")
    elif e["event"] == "PROG_UNLOAD":
        unloads[e["id"]] = unloads.get(e["id"], 0) + 1
bad = [i for i in truth if loads.get(i) != 1 or unloads.get(i, 0) > 1]
if bad:
    sys.exit("%d of %d programs not loaded once or unloaded twice (first: %d: %s loads, %s unloads)" %
             (len(bad), len(truth), bad[0], loads.get(bad[0]), unloads.get(bad[0])))
wrong = [i for i in truth if check_names and names[i] != truth[i]]
if wrong:
    sys.exit("%d of %d programs misnamed (first: %d is %s, shown %s)" %
             (len(wrong), len(truth), wrong[0], truth[wrong[0]], names[wrong[0]]))
print("%d programs" % len(truth))
EOF

if [ ! -x "$PERF" ]; then
	skip "perf's files" "$PERF missing"
else
	# perf record -z: zstd-compressed records
	"$PERF" record -q -z -e cpu-clock -o "$tmp/z.data" -- \
		"$STORM" -n $N -p zs -l "$tmp/z.truth" >/dev/null 2>&1
	check "perf record -z: every program of the storm, loaded once" \
		sh -c "'$BPFREC' script -i '$tmp/z.data' --json | python3 '$tmp/compare.py' '$tmp/z.truth' names"

	# pipe mode, as a file and from stdin, compressed or not
	"$PERF" record -q -e cpu-clock -o - -- \
		"$STORM" -n $N -p ps -l "$tmp/p.truth" 2>/dev/null >"$tmp/p.data"
	check "pipe mode, a file: every program of the storm" \
		sh -c "'$BPFREC' script -i '$tmp/p.data' --json | python3 '$tmp/compare.py' '$tmp/p.truth' names"
	check "pipe mode, stdin from perf record -o -: every program of the storm" \
		sh -c "'$PERF' record -q -e cpu-clock -o - -- '$STORM' -n $N -p qs -l '$tmp/q.truth' 2>/dev/null |
		       '$BPFREC' script -i - --json | python3 '$tmp/compare.py' '$tmp/q.truth' names"
	check "pipe mode and -z, stdin: every program of the storm" \
		sh -c "'$PERF' record -q -z -e cpu-clock -o - -- '$STORM' -n $N -p rs -l '$tmp/r.truth' 2>/dev/null |
		       '$BPFREC' script -i - --json | python3 '$tmp/compare.py' '$tmp/r.truth' names"
	check "pipe mode from stdin: the text lines too (script reads its input twice)" \
		sh -c "cat '$tmp/p.data' | '$BPFREC' script -i - | grep -c ' PROG_LOAD ' | grep -qx '[1-9][0-9]*'"
	# the stream holds cpu-clock samples: report profiles them, by command
	check "report reads a pipe-mode stdin: the storm's cpu-clock samples" \
		sh -c "cat '$tmp/p.data' | '$BPFREC' report -i - --sort comm |
		       grep -Eq '^ +[0-9.]+% +[1-9][0-9]* +storm *\$'"

	# what perf could not resolve was 'unresolved' with no name before
	unnamed=$("$BPFREC" script -i "$tmp/z.data" --kinds prog 2>/dev/null | awk '$5 == "PROG_LOAD" && $7 == "-"' | wc -l)
	[ "$unnamed" -eq 0 ] && pass "no program of perf's -z file without a name" ||
		fail "no program of perf's -z file without a name" "$unnamed"

	# into a pipe, the columns fit 160 and the details go on (the storm's
	# cpu-clock samples, other tools' programs); the columns leave the
	# details the room the program lines need, whatever kernel functions
	# the profiler sampled (a long symbol is cut in the middle instead:
	# tests/unit/test_script_layout.c names them deterministically), so the
	# storm's program lines fit whole; --width wraps what is longer,
	# cutting nothing
	"$BPFREC" script -i "$tmp/z.data" --comm storm >"$tmp/zs.txt" 2>/dev/null
	long=$(awk '$5 ~ /^PROG_/ && length($0) > 160' "$tmp/zs.txt" | wc -l)
	lines=$(awk '$5 ~ /^PROG_/' "$tmp/zs.txt" | wc -l)
	room=$(awk 'NR == 1 { print 161 - index($0, "DETAILS") }' "$tmp/zs.txt")
	[ "$long" -eq 0 ] && [ "$lines" -gt "$N" ] && [ "$room" -ge 1 ] &&
		pass "script of a storm: program lines within 160 columns, the columns too" ||
		fail "script of a storm: program lines within 160 columns, the columns too" \
			"$long of $lines longer, $room columns for the details"
	"$BPFREC" script -i "$tmp/z.data" --ksymbol --width 100 >"$tmp/w100.txt" 2>/dev/null
	long=$(awk 'length($0) > 100' "$tmp/w100.txt" | wc -l)
	wrapped=$(grep -c '^    [^ ]' "$tmp/w100.txt")
	# nothing cut: every KSYMBOL's len= and every sample's period= of the
	# whole lines is there, wrapped or not (names may be cut, not details)
	"$BPFREC" script -i "$tmp/z.data" --ksymbol --width 0 2>/dev/null |
		grep -oE ' (len|period)=[0-9]+' | sort >"$tmp/w0.details"
	grep -oE ' (len|period)=[0-9]+' "$tmp/w100.txt" | sort >"$tmp/w100.details"
	details=$(wc -l <"$tmp/w0.details")
	cmp -s "$tmp/w0.details" "$tmp/w100.details" && cut=0 ||
		cut=$(comm -3 "$tmp/w0.details" "$tmp/w100.details" | wc -l)
	[ "$long" -eq 0 ] && [ "$wrapped" -gt 0 ] && [ "$details" -gt "$N" ] && [ "$cut" -eq 0 ] &&
		pass "script --width 100: no line longer, $wrapped wrapped, none cut" ||
		fail "script --width 100: no line longer, some wrapped, none cut" \
			"$long longer, $wrapped wrapped, $cut of $details details not as in whole lines"
	folded=$("$BPFREC" script -i "$tmp/z.data" 2>/dev/null | grep -c ' KSYMBOL .* bpf_prog_')
	shown=$("$BPFREC" script -i "$tmp/z.data" --ksymbol --width 0 2>/dev/null |
		grep -c ' KSYMBOL .* bpf_prog_[0-9a-f]*_zs[0-9]* ')
	[ "$folded" -eq 0 ] && [ "$shown" -ge "$N" ] &&
		pass "programs' KSYMBOL lines folded, $shown of the storm's with --ksymbol" ||
		fail "programs' KSYMBOL lines folded, shown with --ksymbol" "$folded folded, $shown shown"
fi

# A comm with control characters: escaped in the text, never raw.
cat >"$tmp/evil.py" <<'EOF'
import ctypes, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.prctl(15, b"ev\x1b[2Jil", 0, 0, 0)		# PR_SET_NAME
insns = ctypes.create_string_buffer(struct.pack("<BBhiBBhi", 0xb7, 0, 0, 0, 0x95, 0, 0, 0))
lic = ctypes.create_string_buffer(b"GPL")
attr = ctypes.create_string_buffer(struct.pack("<IIQQ", 1, 2, ctypes.addressof(insns),
                                               ctypes.addressof(lic)).ljust(128, b"\0"))
if libc.syscall(321, 5, attr, 128) < 0:		# bpf(BPF_PROG_LOAD)
    sys.exit("BPF_PROG_LOAD failed")
EOF
esc=$(printf '\033')
if "$BPFREC" record -o "$tmp/evil.data" -- python3 "$tmp/evil.py" >/dev/null 2>&1; then
	"$BPFREC" script -i "$tmp/evil.data" --comm "ev${esc}[2Jil" >"$tmp/evil.txt" 2>&1
	if grep -q ' ev\\x1b\[2Jil  *PROG_LOAD ' "$tmp/evil.txt" && ! grep -q "$esc" "$tmp/evil.txt"; then
		pass "a comm's escape sequence is shown escaped (--comm finds it)"
	else
		fail "a comm's escape sequence is shown escaped" "$(od -c "$tmp/evil.txt" | head -4)"
	fi
	"$BPFREC" report -i "$tmp/evil.data" >"$tmp/evil.report" 2>&1
	if grep -q ' ev\\x1b\[2Jil ' "$tmp/evil.report" && ! grep -q "$esc" "$tmp/evil.report"; then
		pass "report shows the comm escaped too"
	else
		fail "report shows the comm escaped too" "$(grep -a ev "$tmp/evil.report" | od -c | head -4)"
	fi
else
	fail "recording a comm with an escape sequence" "bpfrec record failed"
fi

# The size record says is the file's, not its data section's.
kib=$("$BPFREC" record -o "$tmp/size.data" --duration 1 2>&1 | sed -n 's/.* in .*size\.data (\([0-9]*\) KiB)$/\1/p')
want=$(($(stat -c %s "$tmp/size.data") / 1024))
[ "$kib" = "$want" ] && pass "record says the file's size ($kib KiB)" ||
	fail "record says the file's size" "said '$kib' KiB, the file has $want"

# One way for every command: -h/--help and --usage exit 0; -? and unknown
# options are one line, "bpfrec CMD: ...", exit 2.
for cmd in record script report stat; do
	bad=
	"$BPFREC" $cmd -h 2>&1 | grep -q "^Usage: bpfrec $cmd " || bad="$bad -h;"
	"$BPFREC" $cmd --help >/dev/null 2>&1 || bad="$bad --help exit;"
	"$BPFREC" $cmd --usage 2>&1 | grep -q "^Usage: bpfrec $cmd " || bad="$bad --usage;"
	for opt in '-?' --bogus; do
		err=$("$BPFREC" $cmd "$opt" 2>&1 >/dev/null)
		rc=$?
		[ $rc -eq 2 ] && [ "$err" = "bpfrec $cmd: bad option '$opt' (see bpfrec $cmd --help)" ] ||
			bad="$bad $opt: exit $rc, '$err';"
	done
	[ -z "$bad" ] && pass "$cmd: -h, --help, --usage, one-line errors" ||
		fail "$cmd: -h, --help, --usage, one-line errors" "$bad"
done

# A FIFO given by name is refused at once; read from stdin, it is a pipe.
mkfifo "$tmp/fifo"
timeout 10 "$BPFREC" script -i "$tmp/fifo" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "bpfrec script: $tmp/fifo: a FIFO: read a pipe from stdin (-i - < FIFO)" ]; then
	pass "script -i FIFO refused at once, saying how to read it"
else
	fail "script -i FIFO refused at once, saying how to read it" "exit $rc: $(head -c 200 "$tmp/err")"
fi
# -i - on a terminal: refused at once rather than waiting for a file typed in.
got=$(BPFREC="$BPFREC" timeout 20 python3 -c '
import os, pty, subprocess
m, s = pty.openpty()
p = subprocess.run([os.environ["BPFREC"], "script", "-i", "-"], stdin=s, capture_output=True, timeout=10)
print(p.returncode, p.stderr.decode().strip())' 2>&1)
[ "$got" = "1 bpfrec script: -: stdin is a terminal: pipe a perf.data into it" ] &&
	pass "script -i - on a terminal refused at once" ||
	fail "script -i - on a terminal refused at once" "$got"

if [ -x "$PERF" ]; then
	cat "$tmp/p.data" >"$tmp/fifo" &
	check "script -i - < FIFO reads the stream" \
		sh -c "timeout 20 '$BPFREC' script -i - --json <'$tmp/fifo' | python3 '$tmp/compare.py' '$tmp/p.truth' names"
	wait
fi

if [ $skipped -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ $failed -eq 0 ]
