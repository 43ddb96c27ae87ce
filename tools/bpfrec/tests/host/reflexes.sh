#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of perf's reflexes (issue 23, item 2): what a perf user types
# first, and what bpfrec does with it: the same as perf, or a refusal in
# one line that says what to type instead.  Root on the host kernel;
# Linux perf reads the files back where it can say what they hold.
#
#   BPFREC=path/to/bpfrec WORK=path/to/sample-work tests/host/reflexes.sh
#
# Last line: "reflexes: N passed, N failed, N skipped"; exit 1 if anything failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
BPFREC=${BPFREC:-$here/../../bpfrec}
WORK=$(realpath "${WORK:-$here/../../.output/sample-work}")
PERF=${PERF:-/usr/bin/perf}

. "$here/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "reflexes host tests need root" >&2
	exit 1
fi
for t in "$BPFREC" "$WORK" "$PERF"; do
	[ -x "$t" ] || { echo "missing $t: run 'make host-test' (and install linux-perf)" >&2; exit 1; }
done

tmp=$(mktemp -d /tmp/bpfrec-reflexes.XXXXXX)
bg=
trap '[ -n "$bg" ] && kill $bg 2>/dev/null; rm -rf "$tmp"' EXIT
see="(see bpfrec record --help)"

# attr FILE EVENT: the attr of EVENT as perf evlist -v shows it
attr() { "$PERF" evlist -v -i "$1" 2>/dev/null | grep "^$2: "; }
# rec NAME ARGS...: bpfrec record ARGS exits 0 ($tmp/err holds what it said)
rec() {
	local name=$1 rc
	shift
	"$BPFREC" record "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	[ $rc -eq 0 ] || fail "$name" "exit $rc: $(tr '\n' ' ' <"$tmp/err" | head -c 300)"
	return $rc
}

# --- record -a with a command: system-wide while it runs ----------------

for form in "-a -- sleep 1" "-a sleep 1" "-e bpf-events -a -- sleep 1"; do
	# shellcheck disable=SC2086
	if rec "record $form" -o "$tmp/a.data" $form; then
		result "record $form: recorded while the command ran" \
			"$(grep -qx 'bpfrec record: sleep exited with status 0' "$tmp/err" ||
			   echo "no line of sleep's exit: $(tr '\n' ' ' <"$tmp/err")")$(
			   "$BPFREC" script -i "$tmp/a.data" --json >/dev/null 2>&1 || echo "unreadable file")"
	fi
done

# A process outside the command is sampled too: -a is every task.  It
# spins 3 s of CPU time and ends, even if this script is killed.
"$WORK" busy 3 >/dev/null &
bg=$!
if rec "record -e cpu-clock -a -- sleep 1" -e cpu-clock -a -o "$tmp/aw.data" -- sleep 1; then
	n=$("$BPFREC" script -i "$tmp/aw.data" --json 2>/dev/null |
	    python3 -c "import json, sys
print(sum(1 for l in sys.stdin if json.loads(l).get('pid') == $bg and json.loads(l).get('event') == 'cpu-clock'))")
	result "record -e cpu-clock -a -- sleep 1: a busy process outside the command sampled" \
		"$([ "${n:-0}" -gt 0 ] || echo "no sample of pid $bg")"
fi

# -C CPU: every task of that CPU, and no other CPU.
if rec "record -C 0 -- CMD" -C 0 -o "$tmp/c.data" -- taskset -c 0 "$WORK" busy 0.3; then
	"$BPFREC" script -i "$tmp/c.data" --json 2>/dev/null | python3 -c "import json, sys
cpus = [json.loads(l)['cpu'] for l in sys.stdin if '\"event\":\"cpu-clock\"' in l]
print(len(cpus), sorted(set(cpus)))" >"$tmp/c.out"
	read -r n cpus <"$tmp/c.out"
	result "record -C 0: samples of CPU 0 alone (default event, cpu-clock)" \
		"$([ "$n" -gt 0 ] && [ "$cpus" = "[0]" ] || echo "$n samples on CPUs $cpus")"
fi
kill $bg 2>/dev/null
wait $bg 2>/dev/null
bg=

# --- -g and -F without -e: perf's default event --------------------------

# cycles where a PMU counts it, else cpu-clock (these hosts have none)
if "$PERF" stat -e cycles -x, -- true 2>&1 | grep -q 'not supported\|not counted'; then
	default=cpu-clock
else
	default=cycles
fi
if rec "record -g -- ls" -g -o "$tmp/g.data" -- ls; then
	result "record -g -- ls: $default sampled with stacks" \
		"$(attr "$tmp/g.data" $default | grep -q 'sample_type: [A-Z|]*CALLCHAIN' ||
		   echo "no $default with CALLCHAIN: $("$PERF" evlist -v -i "$tmp/g.data" 2>&1 | tr '\n' ' ')")"
fi
if rec "record -F 99 -a -g -- sleep 1" -F 99 -a -g -o "$tmp/f.data" -- sleep 1; then
	result "record -F 99 -a -g -- sleep 1: $default at 99 Hz with stacks on every CPU" \
		"$(attr "$tmp/f.data" $default | grep -q 'sample_freq }: 99,.*CALLCHAIN.*freq: 1' ||
		   echo "attr: $(attr "$tmp/f.data" $default)")$(
		   grep -qx "bpfrec record: sampling $default at 99 Hz with stacks on every CPU" "$tmp/err" ||
		   echo " said: $(tr '\n' ' ' <"$tmp/err")")"
fi

# --- --call-graph as perf parses it --------------------------------------

echo keep >"$tmp/keep.data"
if rec "record --call-graph dwarf -- true" --call-graph dwarf -o "$tmp/dw.data" -- true; then
	result "record --call-graph dwarf -- true: $default sampled with user registers and stack" \
		"$(attr "$tmp/dw.data" $default | grep -q 'sample_type: [A-Z_|]*CALLCHAIN[A-Z_|]*REGS_USER|STACK_USER' ||
		   echo "attr: $(attr "$tmp/dw.data" $default)")"
fi
for bad in dwarf,0 dwarf,x dwarf,70000 fp,8 frames; do
	one_line "record --call-graph $bad: exit 2, the output file left as it was" 2 \
		"bpfrec record: --call-graph wants fp or dwarf[,SIZE] (SIZE 1 to 65528 bytes), not '$bad' $see" \
		record --call-graph "$bad" -o "$tmp/keep.data" -- true
done
one_line "record --call-graph lbr: refused in one line, exit 2" 2 \
	"bpfrec record: --call-graph lbr: branch stacks (LBR) are not recorded: use --call-graph fp or dwarf $see" \
	record --call-graph lbr -o "$tmp/keep.data" -- true
result "record --call-graph with bad input: the output file left as it was" \
	"$([ "$(cat "$tmp/keep.data")" = keep ] || echo "overwritten")"
if rec "record --call-graph=fp -- true" --call-graph=fp -o "$tmp/fp.data" -- true; then
	result "record --call-graph=fp: $default sampled with stacks" \
		"$(attr "$tmp/fp.data" $default | grep -q 'CALLCHAIN' || echo "no CALLCHAIN")"
fi

# --- -e lists and globs ----------------------------------------------------

if rec "record -e cpu-clock,task-clock" -e cpu-clock,task-clock -o "$tmp/l.data" -- true; then
	result "record -e cpu-clock,task-clock: both events" \
		"$(v=$("$PERF" evlist -i "$tmp/l.data" 2>/dev/null | grep -v '^#' | tr '\n' ' ')
		   [ "$v" = "bpf-events cpu-clock task-clock " ] || echo "events: $v")"
fi
want=$(ls /sys/kernel/tracing/events/sched | grep '^sched_process_' | sed 's/^/sched:/' | tr '\n' ' ')
if rec "record -e 'sched:sched_process_*'" -e 'sched:sched_process_*' -o "$tmp/t.data" -- true; then
	result "record -e 'sched:sched_process_*': every tracepoint it names" \
		"$(v=$("$PERF" evlist -i "$tmp/t.data" 2>/dev/null | grep '^sched:' | tr '\n' ' ')
		   [ -n "$want" ] && [ "$v" = "$want" ] || echo "events: '$v', want '$want'")"
fi
one_line "record -e 'sched:no_such_*': exit 2" 2 \
	"bpfrec record: no tracepoint matches 'sched:no_such_*' (see /sys/kernel/tracing/available_events)" \
	record -e 'sched:no_such_*' -o "$tmp/keep.data" -- true
one_line "record -C 9999: exit 2" 2 "bpfrec record: -C wants a list of online CPUs like 0,2-3, not '9999' $see" \
	record -C 9999 -o "$tmp/keep.data" -- true

# --- report and script as perf's ------------------------------------------

rec "record -g of sample-work" -e cpu-clock -F 999 -g -o "$tmp/w.data" -- "$WORK" busy 0.5
wpid=$(sed -n 's/^pid //p' "$tmp/out")
"$BPFREC" report -i "$tmp/w.data" >"$tmp/plain.txt" 2>/dev/null
"$BPFREC" report --stdio -n --no-children "$tmp/w.data" >"$tmp/perfish.txt" 2>"$tmp/err"
result "report --stdio -n --no-children FILE: the report of -i FILE" \
	"$(cmp -s "$tmp/plain.txt" "$tmp/perfish.txt" || echo "differs: $(head -c 200 "$tmp/err")")$(
	   grep -q busy_inner "$tmp/plain.txt" || echo "no busy_inner")"
"$BPFREC" report -g -i "$tmp/w.data" >"$tmp/g.txt" 2>"$tmp/err"
result "report -g: each stack, busy_inner called from busy_outer" \
	"$(awk '/busy_inner/ { getline n; if (n ~ /busy_outer/) ok = 1 } END { exit !ok }' "$tmp/g.txt" ||
	   echo "no stack busy_inner <- busy_outer: $(head -c 300 "$tmp/g.txt")")"
"$BPFREC" report --header-only -i "$tmp/w.data" >"$tmp/h.txt" 2>"$tmp/err"
result "report --header-only: header lines only" \
	"$(grep -q '^# event: cpu-clock' "$tmp/h.txt" && ! grep -qv '^#' "$tmp/h.txt" ||
	   echo "$(head -c 300 "$tmp/h.txt")")"
"$BPFREC" report --lifecycle --header-only -i "$tmp/w.data" >"$tmp/lh.txt" 2>"$tmp/err"
result "report --lifecycle --header-only: header lines only" \
	"$(grep -q '^# records: ' "$tmp/lh.txt" && ! grep -qv '^#' "$tmp/lh.txt" ||
	   echo "$(head -c 300 "$tmp/lh.txt")")"
# the file's HEADER_VERSION (perf's "perf version") is what --version says
want="# written by: bpfrec-$("$BPFREC" --version | sed 's/^bpfrec //')"
result "the file names the version that --version prints" \
	"$(grep -qxF "$want" "$tmp/lh.txt" || echo "want '$want', got '$(grep '^# written by' "$tmp/lh.txt")'")"
"$BPFREC" report --comm sample-work --json -i "$tmp/w.data" >"$tmp/c.json" 2>"$tmp/err"
result "report --comm sample-work: its rows alone" \
	"$(python3 -c "import json, sys
c = [json.loads(l)['comm'] for l in open(sys.argv[1])]
sys.exit(0 if c and set(c) == {'sample-work'} else 'comms: %s' % sorted(set(c)))" "$tmp/c.json" 2>&1)"
"$BPFREC" report --sort pid --json -i "$tmp/w.data" >"$tmp/p.json" 2>"$tmp/err"
result "report --sort pid: rows by process, sample-work's pid the heaviest" \
	"$(python3 -c "import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(0 if r and r[0].get('pid') == $wpid and all('pid' in x for x in r) else str(r[:2]))" "$tmp/p.json" 2>&1)"
"$BPFREC" script -F pid,event,sym "$tmp/w.data" >"$tmp/F.txt" 2>"$tmp/err"
result "script -F pid,event,sym FILE: those columns, the stack under each sample" \
	"$(head -n 1 "$tmp/F.txt" | grep -qx '#   PID EVENT *NAME' || echo "header: $(head -n 1 "$tmp/F.txt")")$(
	   grep -Eq "^ *$wpid cpu-clock +busy_inner$" "$tmp/F.txt" || echo " no line '$wpid cpu-clock busy_inner'")$(
	   grep -q $'^\t.*busy_outer' "$tmp/F.txt" || echo " no frame busy_outer")"
one_line "script -F nope: exit 2" 2 \
	"bpfrec script: unknown field 'nope': comm, tid, pid, time, cpu, event, trace, period, ip, sym, symoff, dso, id, name, type, tag or details (see bpfrec script --help)" \
	script -F nope -i "$tmp/w.data"
one_line "report with two files: exit 2" 2 \
	"bpfrec report: unexpected argument 'b' (the input is a) (see bpfrec report --help)" report a b

# --- -v, -q in every command ---------------------------------------------

"$BPFREC" record --capture=fentry -o "$tmp/v.data" -- true >/dev/null 2>"$tmp/err0"
if grep -q 'refuses BPF trampolines' "$tmp/err0"; then
	"$BPFREC" record -v --capture=fentry -o "$tmp/v.data" -- true >/dev/null 2>"$tmp/err"
	result "record -v --capture=fentry: libbpf's reason shown, then ours" \
		"$(grep -q '^libbpf: prog .*: BPF program load failed: Operation not permitted' "$tmp/err" &&
		   tail -n 1 "$tmp/err" | grep -q 'refuses BPF trampolines' ||
		   echo "$(head -c 300 "$tmp/err")")"
	result "record --capture=fentry without -v: our line alone" \
		"$([ "$(wc -l <"$tmp/err0")" -eq 1 ] || echo "$(head -c 300 "$tmp/err0")")"
else
	skip "record -v --capture=fentry shows libbpf's reason" "this kernel takes trampolines"
fi
rec "record -q" -q -o "$tmp/q.data" -- true &&
	result "record -q: nothing said" "$([ -s "$tmp/err" ] && head -c 300 "$tmp/err")"
for cmd in "script -v -i $tmp/q.data" "script -q -i $tmp/q.data" "report -v -i $tmp/q.data" \
	   "report -vv --lifecycle -i $tmp/q.data" "stat -v --all-progs -- true" \
	   "stat -q --all-progs -- true"; do
	# shellcheck disable=SC2086
	"$BPFREC" $cmd >/dev/null 2>"$tmp/err" </dev/null
	rc=$?
	result "${cmd%% -[ie]*}: taken, exit 0" "$([ $rc -eq 0 ] || echo "exit $rc: $(head -c 200 "$tmp/err")")"
done

# --- help -----------------------------------------------------------------

"$BPFREC" help >"$tmp/help" 2>&1
rc=$?
result "bpfrec help: the commands, exit 0" \
	"$([ $rc -eq 0 ] && grep -q '^  record ' "$tmp/help" || head -c 200 "$tmp/help")"
"$BPFREC" help record >"$tmp/help" 2>&1
rc=$?
result "bpfrec help record: record's help, exit 0" \
	"$([ $rc -eq 0 ] && grep -q '^Usage: bpfrec record' "$tmp/help" && grep -q -- '--call-graph' "$tmp/help" ||
	   head -c 200 "$tmp/help")"
one_line "bpfrec help nope: exit 2" 2 "bpfrec help: unknown command 'nope' (see bpfrec --help)" help nope

echo "reflexes: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
