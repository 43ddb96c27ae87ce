#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of output that never misleads (issue 23, item 3): what record
# says it records, report's rows of kinds it could not record, the
# summary against the report, names cut to fit, the idle task, kernel
# frames of perf's files in script, off-CPU stacks without the profiler's
# frames, stat -b of a program that is unloaded, and the records of a
# libbpf-tools-style object decoded.  Root on the host kernel.
#
#   BPFREC=path/to/bpfrec STORM=path/to/storm STAT_PROG=path/to/stat-prog \
#     WORK=path/to/sample-work OBJS=path/to/.output tests/host/honest.sh
#
# Last line: "honest: N passed, N failed, N skipped"; exit 1 if anything failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
BPFREC=${BPFREC:-$here/../../bpfrec}
STORM=${STORM:-$here/../../.output/storm}
STAT_PROG=${STAT_PROG:-$here/../../.output/stat-prog}
WORK=$(realpath "${WORK:-$here/../../.output/sample-work}")
OBJS=${OBJS:-$here/../../.output}
PERF=${PERF:-/usr/bin/perf}

. "$here/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "honest host tests need root" >&2
	exit 1
fi
for t in "$BPFREC" "$STORM" "$STAT_PROG" "$WORK" "$PERF"; do
	[ -x "$t" ] || { echo "missing $t: run 'make host-test' (and install linux-perf)" >&2; exit 1; }
done

tmp=$(mktemp -d /tmp/bpfrec-honest.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# --- what is recorded, said once; no rows for what is not ----------------

"$BPFREC" record --capture=off -o "$tmp/s.data" -- "$STORM" -n 50 -p hon >/dev/null 2>"$tmp/s.err"
rc=$?
stock=0
grep -q 'kernel lacks bpf_obj_event' "$tmp/s.err" && stock=1
if [ $stock = 1 ]; then
	result "stock kernel: one line says what is recorded and what is not" \
		"$([ $rc -eq 0 ] || echo "exit $rc")$(
		   n=$(grep -c 'recording\|capturing' "$tmp/s.err")
		   [ "$n" -eq 1 ] || echo " $n lines of what is recorded: $(tr '\n' ' ' <"$tmp/s.err")")$(
		   grep -qx "bpfrec record: recording BPF programs on $(nproc) CPUs, resolved by id afterwards (short-lived ones stay unresolved); not maps, links or BTF: kernel lacks bpf_obj_event, which records them" "$tmp/s.err" ||
		   echo " said: $(head -n 1 "$tmp/s.err")")"
	"$BPFREC" report --lifecycle -i "$tmp/s.data" >"$tmp/s.txt" 2>&1
	result "stock kernel: report has no rows of maps, links or BTF, and says they were not recorded" \
		"$(grep -E '^  (map|link|btf) ' "$tmp/s.txt" | head -3)$(
		   grep -q 'MAPS\|LINKS' "$tmp/s.txt" && echo " columns of maps or links")$(
		   [ "$(grep -c '^  not recorded: map, link, btf (the kernel of the recording has no records of them: bpf_obj_event)$' "$tmp/s.txt")" -eq 1 ] ||
		   echo " no line saying so")"
else
	skip "stock kernel: one line says what is recorded" "this kernel has bpf_obj_event"
	skip "stock kernel: report has no rows of maps, links or BTF" "this kernel has bpf_obj_event"
fi

# The summary counts what the report counts: the programs, and those left
# unresolved (--capture=off: the storm's are gone when asked).
sum=$(sed -n 's/^bpfrec record: [0-9]* records, \([0-9]*\) programs (\([0-9]*\) unresolved) in .*/\1 \2/p' "$tmp/s.err")
read -r progs unres <<<"${sum:-x x}"
"$BPFREC" report --lifecycle -i "$tmp/s.data" >"$tmp/s.txt" 2>/dev/null
rep=$(awk '$1 == "prog" && NF == 7 { u += $7; c += $3 }
	   /bpfrec \(self\) not counted:/ { for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^prog/) s += $i }
	   END { print c + s, u + 0 }' "$tmp/s.txt")
if [ $stock = 1 ]; then
	result "the summary's programs and unresolved are the report's" \
		"$([ "$progs $unres" = "$rep" ] && [ "$unres" -gt 0 ] ||
		   echo "summary '$progs $unres', report '$rep': $(grep records, "$tmp/s.err")")"
else
	skip "the summary's programs and unresolved are the report's" "this kernel has bpf_obj_event"
fi

# --- names cut to fit, in the middle, and whole with --wide ----------------

"$BPFREC" record -o "$tmp/n.data" -- "$STAT_PROG" -r 1 >"$tmp/n.out" 2>/dev/null
pid=$(sed -n 's/^id //p' "$tmp/n.out")
name=stat_target_with_a_long_name
line() { awk -v id="$pid" '$5 == "PROG_LOAD" && $6 == id { print $7 }'; }
got=$("$BPFREC" script -i "$tmp/n.data" --width 100 2>/dev/null | line)
result "script --width 100: a long name cut in the middle, its ends shown" \
	"$([ "$got" = "stat_ta..ng_name" ] || echo "name '$got'")"
got=$("$BPFREC" script -i "$tmp/n.data" 2>/dev/null | line)
result "script into a pipe: the long name whole within 160 columns" \
	"$([ "$got" = "$name" ] || echo "name '$got'")"
got=$("$BPFREC" script -i "$tmp/n.data" --wide --width 100 2>/dev/null | line)
result "script --wide: the long name whole" "$([ "$got" = "$name" ] || echo "name '$got'")"

# report's table fits a terminal of 57 columns: the workload's Pid:Command
# (its comm of 15 characters: longer than 16 columns with any pid) and the
# symbols cut in the middle to 16 columns (the least a column keeps)
cp "$WORK" "$tmp/sample-work-with-a-long-name"
"$BPFREC" record -e cpu-clock -o "$tmp/w.data" -- "$tmp/sample-work-with-a-long-name" busy 0.3 \
	>"$tmp/w.out" 2>/dev/null
wpid=$(sed -n 's/^pid //p' "$tmp/w.out")
script -qc "stty cols 57; $BPFREC report -i $tmp/w.data --sort pid,sym" /dev/null | tr -d '\r' >"$tmp/t57.txt"
result "report in a 57-column terminal: rows fit, Pid:Command cut in the middle" \
	"$(awk 'substr($0, 1, 1) != "#" && length($0) > 57' "$tmp/t57.txt" | head -2)$(python3 -c "import sys
s = '$wpid:sample-work-wit'
rows = [l.split() for l in open(sys.argv[1]) if l.rstrip().endswith(' busy_inner')]
c = rows[0][2] if rows else ''
head, _, tail = c.partition('..')
sys.exit(0 if len(s) > 16 and len(c) <= 16 and tail and s.startswith(head) and s.endswith(tail)
	 else ' %s shown as %s' % (s, c))" "$tmp/t57.txt" 2>&1)"
script -qc "stty cols 57; $BPFREC report -i $tmp/w.data --sort pid,sym --wide" /dev/null | tr -d '\r' >"$tmp/tw.txt"
result "report --wide in a 57-column terminal: Pid:Command whole" \
	"$(grep -q "%  *[0-9]*  $wpid:sample-work-wit " "$tmp/tw.txt" || echo "$(head -c 400 "$tmp/tw.txt")")"

# --- the idle task is swapper ---------------------------------------------

"$BPFREC" record -e cpu-clock -a -o "$tmp/i.data" --duration 1 >/dev/null 2>&1
"$BPFREC" script -i "$tmp/i.data" --json 2>/dev/null | python3 -c "import json, sys
c = {json.loads(l).get('comm') for l in sys.stdin if '\"event\":\"cpu-clock\"' in l and '\"tid\":0,' in l}
print(len(c), ' '.join(sorted(str(x) for x in c)))" >"$tmp/i.out"
read -r n comms <"$tmp/i.out"
if [ "$n" -eq 0 ]; then
	skip "the idle task is swapper" "no CPU was idle for a sample in 1 s"
else
	"$BPFREC" report -i "$tmp/i.data" --sort comm --json 2>/dev/null >"$tmp/i.json"
	result "the idle task is swapper, in script and in report" \
		"$([ "$comms" = swapper ] || echo "script: $comms")$(
		   grep -q '"comm":"swapper"' "$tmp/i.json" || echo " report: no swapper row")"
fi

# --- script names the kernel frames of perf's files as report does --------

"$PERF" record -q -e cpu-clock -g -a -o "$tmp/perf.data" -- "$WORK" busy 0.3 >/dev/null 2>&1
# A bare frame counts against script only where it lies in the kernel's own
# text, which kallsyms names: other tools' BPF programs that ran during the
# system-wide recording and are gone when script reads it cannot be named.
"$BPFREC" script -i "$tmp/perf.data" --json 2>/dev/null | python3 -c "import json, sys
text = {}
for l in open('/proc/kallsyms'):
    a, _, n = l.split()[:3]
    if n in ('_stext', '_etext'):
        text[n] = int(a, 16)
bare = named = 0
for l in sys.stdin:
    for f in json.loads(l).get('callchain') or []:
        if f.startswith('0xffff'):
            a = int(f.split()[0], 16)
            if text.get('_stext', 0) <= a < text.get('_etext', 1 << 64):
                bare += 1
        elif '+0x' in f and '(' not in f:
            named += 1
print(bare, named)" >"$tmp/k.out"
read -r bare named <"$tmp/k.out"
result "script of perf's file: its kernel frames named from this machine's kallsyms" \
	"$([ "$named" -gt 0 ] && [ $((bare * 100)) -le "$named" ] || echo "$bare bare, $named named")"

# --- off-CPU stacks start where the task waits ----------------------------

"$BPFREC" record --off-cpu -o "$tmp/o.data" -- sleep 0.3 >/dev/null 2>&1
"$BPFREC" report --off-cpu --json -i "$tmp/o.data" >"$tmp/o.json" 2>/dev/null
"$BPFREC" script --json -i "$tmp/o.data" 2>/dev/null | grep '"event":"offcpu-time"' >"$tmp/os.json"
result "off-CPU stacks without the profiler's frames, in report and script" \
	"$(python3 -c "import json, sys, re
own = re.compile(r'(bpf_trace_run|__bpf_trace_|__traceiter_|bpf_prog_)')
r = [json.loads(l) for l in open(sys.argv[1])]
s = [json.loads(l) for l in open(sys.argv[2])]
bad = [x['stack'] for x in r if own.search(x['stack'])]
bad += [x['callchain'][0] for x in s if x.get('callchain') and own.match(x['callchain'][0])]
bad += [x['name'] for x in s if own.match(x.get('name', ''))]
sleep = [x for x in r if x['comm'] == 'sleep' and 'schedule' in x['stack']]
if bad or not sleep:
    sys.exit('%d stacks of sleep, with the profiler: %s' % (len(sleep), bad[:2]))" "$tmp/o.json" "$tmp/os.json" 2>&1)"

# --- stat -b of a program that is unloaded ---------------------------------

# The loader holds its program until it is killed, once stat -b has printed an
# interval: a loader that unloaded after a fixed time could do so before a
# slow machine had started bpfrec, or had printed anything.
"$STAT_PROG" -r 100 -k 10 -s 3600 >"$tmp/sp.out" 2>&1 &
sp=$!
wait_until 60 grep -qs '^ran ' "$tmp/sp.out"
id=$(sed -n 's/^id //p' "$tmp/sp.out")
timeout 120 "$BPFREC" stat -b "$id" -I 200 --json >"$tmp/b.json" 2>"$tmp/b.err" &
bp=$!
wait_until 60 grep -qs '"enabled"' "$tmp/b.json"
kill $sp
wait $sp 2>/dev/null
wait $bp
rc=$?
result "stat -b: its target unloaded, said once, the session ends" \
	"$([ $rc -eq 0 ] || echo "exit $rc")$(
	   [ "$(grep -c "^bpfrec stat: -b: program $id (stat_target_with_a_long_name) was unloaded: counted until [0-9.]* s, its last runs since then not$" "$tmp/b.err")" -eq 1 ] ||
	   echo " said: $(head -c 300 "$tmp/b.err")")"
result "stat -b: no interval printed after the unload, none of a few microseconds" \
	"$(python3 -c "import json, sys
# every interval printed is a whole one of 0.2 s (a timer fires late, never early)
t = [json.loads(l)['enabled'] for l in open(sys.argv[1]) if l.strip()]
if not t or min(t) < 100000000:
    sys.exit('intervals of %s ns' % t[-3:])" "$tmp/b.json" 2>&1)"

# --- a libbpf-tools-style object's records decoded -------------------------

obj=$OBJS/tests/host/objects/exec_events.bpf.o
if [ -f "$obj" ]; then
	"$BPFREC" record --object "$obj" -o "$tmp/x.data" -- sh -c '/bin/true; /bin/true' >/dev/null 2>&1
	for how in "" "--decode events=exec_event"; do
		# shellcheck disable=SC2086
		"$BPFREC" script -i "$tmp/x.data" --json $how 2>/dev/null | grep '"event":"ringbuf"' >"$tmp/x.json"
		what=": the only struct of its size"
		[ -n "$how" ] && what=" with $how"
		result "ringbuf 'events' of struct exec_event decoded$what" \
			"$(python3 -c "import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
ok = [x for x in r if x.get('type') == 'struct exec_event' and x['details'].get('comm') == 'true'
      and x['details'].get('pid') == x['details'].get('tid')]
sys.exit(0 if len(ok) >= 2 else '%d of %d records decoded as true: %s' % (len(ok), len(r), r[:1]))" "$tmp/x.json" 2>&1)"
	done
	one_line "script --decode without a struct: exit 2" 2 \
		"bpfrec script: --decode wants MAP=STRUCT, not 'events' (see bpfrec script --help)" \
		script -i "$tmp/x.data" --decode events
else
	fail "ringbuf records decoded" "missing $obj: run 'make host-test'"
fi

echo "honest: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
