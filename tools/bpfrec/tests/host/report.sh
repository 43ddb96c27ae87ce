#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the profile of `bpfrec report`, on files recorded by Linux
# perf (`perf record -e cpu-clock -g`, the same format bpfrec's samplers
# write): user symbols of a test binary's hot function, a BPF program kept
# busy with BPF_PROG_TEST_RUN named after it was unloaded, --folded, the
# flame graph's XML and widths, kernel names through --kallsyms, the
# lifecycle summary of --lifecycle, and bad input.  Root on the running kernel.
#
#   BPFREC=path/to/bpfrec STAT_PROG=path/to/stat-prog tests/host/report.sh
#
# Needs /usr/bin/perf, python3, xmllint (libxml2-utils) and bpftool.
# Last line: "report: N passed, N failed, N skipped"; exit 1 on a failure.
set -u

here=$(cd "$(dirname "$0")" && pwd)
BPFREC=${BPFREC:-$here/../../bpfrec}
STAT_PROG=${STAT_PROG:-$here/../../.output/stat-prog}
PERF=${PERF:-/usr/bin/perf}
CC=${CC:-gcc}

. "$here/lib.sh"
. "$here/../lib/profile.sh"

finish() {
	echo "report: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit
}

if [ "$(id -u)" -ne 0 ]; then
	echo "report tests need root (BPF programs, kernel symbols)" >&2
	exit 1
fi
for t in "$BPFREC" "$STAT_PROG"; do
	[ -x "$t" ] || { echo "missing $t: run 'make' first" >&2; exit 1; }
done
if [ ! -x "$PERF" ]; then
	skip "every report test" "no $PERF to record with (linux-perf)"
	finish
fi

tmp=$(mktemp -d /tmp/bpfrec-report.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# --- user symbols: a known hot function, by name, in a -g profile --------
cat >"$tmp/hot.c" <<'C'
static volatile unsigned long sink;

__attribute__((noinline)) void hot_function_for_test(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) void cold_caller(void)
{
	hot_function_for_test(200000000UL);
}

int main(void)
{
	cold_caller();
	return 0;
}
C
$CC -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls "$tmp/hot.c" -o "$tmp/hot"
"$PERF" record -q -e cpu-clock -g -o "$tmp/hot.data" -- "$tmp/hot" 2>"$tmp/perf.err"

"$BPFREC" report -i "$tmp/hot.data" --sort comm,dso,sym --json >"$tmp/hot.json" 2>"$tmp/err"
result "user symbols: the hot function heads the profile, in its file" "$(python3 - "$tmp/hot.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
top = rows[0]
if (top["sym"], top["dso"], top["comm"]) != ("hot_function_for_test", sys.argv[1].rsplit("/", 1)[0] + "/hot", "hot"):
    print("top row", top)
elif top["overhead"] < 80:
    print("only %.2f%% in it" % top["overhead"])
PY
)"

"$BPFREC" report -i "$tmp/hot.data" --folded >"$tmp/hot.folded" 2>"$tmp/err"
rc=$?
result "--folded: comm first, main calling the hot function, counts adding up" "$(
	[ $rc -eq 0 ] || echo "exit $rc: $(head -c 200 "$tmp/err")"
	python3 - "$tmp/hot.folded" "$tmp/hot.json" <<'PY'
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
total = 0
for l in lines:
    m = re.fullmatch(r"([^;]+)(;[^;]+)* (\d+)", l)
    if not m:
        print("bad line", repr(l)); sys.exit()
    total += int(l.rsplit(" ", 1)[1])
want = sum(json.loads(l)["samples"] for l in open(sys.argv[2]))
hot = [l for l in lines if l.rsplit(" ", 1)[0].endswith(";main;hot_function_for_test") or
       l.rsplit(" ", 1)[0].endswith(";main;cold_caller;hot_function_for_test")]
if total != want:
    print("folded counts sum to %d, the table to %d" % (total, want))
elif len(hot) != 1 or not hot[0].startswith("hot;"):
    print("hot stack lines:", hot)
elif lines != sorted(lines):
    print("lines not sorted")
PY
)"

# --- the flame graph: well-formed, the known frames as wide as their share -
"$BPFREC" report -i "$tmp/hot.data" --svg "$tmp/hot.svg" >"$tmp/out" 2>"$tmp/err"
rc=$?
result "--svg: written, and said" "$([ $rc -eq 0 ] && grep -q "written to $tmp/hot.svg" "$tmp/out" ||
	echo "exit $rc: $(head -c 200 "$tmp/err")")"
if command -v xmllint >/dev/null; then
	result "--svg: well-formed XML (xmllint)" "$(xmllint --noout "$tmp/hot.svg" 2>&1 | head -3)"
else
	skip "--svg: well-formed XML" "xmllint missing (libxml2-utils, scripts/deps.sh)"
fi
result "--svg: frames as wide as their samples" "$(python3 - "$tmp/hot.svg" "$tmp/hot.folded" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
frames = {}
for g in ET.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}g"):
    frames.setdefault(g.get("data-n"), []).append(g)
want = {}
for l in open(sys.argv[2]):
    stack, n = l.rsplit(" ", 1)
    for name in ("hot_function_for_test", "main"):
        if (stack + ";").find(";%s;" % name) >= 0:
            want[name] = want.get(name, 0) + int(n)
total = int(frames["all"][0].get("data-v"))
full = float(frames["all"][0].find("s:rect", ns).get("width"))
for name, n in want.items():
    g = frames.get(name)
    if not g:
        print("no frame", name); break
    v = sum(int(x.get("data-v")) for x in g)
    w = sum(float(x.find("s:rect", ns).get("width")) for x in g)
    if v != n or abs(w - full * n / total) > 0.02 * len(g):
        print("%s: %d samples, width %.2f; want %d, %.2f" % (name, v, w, n, full * n / total)); break
    if name + " (%d samples" % n not in g[0].find("s:title", ns).text:
        print("title of", name, g[0].find("s:title", ns).text); break
PY
)"

# --- BPF: a program kept busy with BPF_PROG_TEST_RUN, named once unloaded --
"$PERF" record -q -e cpu-clock -g -o "$tmp/bpf.data" -- \
	"$STAT_PROG" -r 20000000 -k 1000000 >"$tmp/prog.out" 2>"$tmp/perf.err"
id=$(awk '$1 == "id" { print $2 }' "$tmp/prog.out")
if [ -z "$id" ]; then
	fail "BPF program recorded" "stat-prog: $(head -c 200 "$tmp/prog.out" "$tmp/perf.err")"
else
	# another tool that walks every program (bpftool, a bpfrec stat --all-progs
	# beside us) may hold it for a moment after its loader exited
	result "the program is unloaded before the report" \
		"$(wait_until 30 unloaded "$id" || echo "prog $id still loaded after 30 s")"
	"$BPFREC" report -i "$tmp/bpf.data" --sort dso,bpf --json >"$tmp/bpf.json" 2>"$tmp/err"
	read -r mine all < <(bpf_share "$tmp/bpf.json" "stat_target_with_a_long_name (id $id)")
	result "BPF samples attributed to the unloaded program by its BTF name and id ($mine of $all)" \
		"$([ "$all" -ge 20 ] && [ $((2 * mine)) -gt "$all" ] ||
		   echo "$mine of $all BPF samples are the program's: $(grep '"\[bpf\]"' "$tmp/bpf.json" | head -3)")"
	"$BPFREC" report -i "$tmp/bpf.data" --sort sym >"$tmp/bpf.txt" 2>"$tmp/err"
	result "the text table names it, and says where kernel symbols came from" "$(
		grep -q '^ .*%.* stat_target_with_a_long_name$' "$tmp/bpf.txt" || echo "no row: $(head -12 "$tmp/bpf.txt")"
		grep -qx "# kernel symbols from this machine's /proc/kallsyms (the file holds none)" "$tmp/bpf.txt" ||
			echo "no kallsyms line")"
	# perf's files keep no kallsyms: --kallsyms names the recording machine's copy
	cp /proc/kallsyms "$tmp/kallsyms.copy"
	: >"$tmp/empty.kallsyms"
	"$BPFREC" report -i "$tmp/bpf.data" --kallsyms "$tmp/kallsyms.copy" >"$tmp/ks.txt" 2>"$tmp/err"
	"$BPFREC" report -i "$tmp/bpf.data" --kallsyms "$tmp/kallsyms.copy" --folded >"$tmp/ks.folded" 2>>"$tmp/err"
	result "--kallsyms COPY names a perf file's kernel frames, and says so" "$(
		grep -qx "# kernel symbols from $tmp/kallsyms.copy (the file holds none)" "$tmp/ks.txt" ||
			echo "kallsyms line: $(grep '^# kernel' "$tmp/ks.txt")"
		grep -q ';do_syscall_64;__x64_sys_bpf;__sys_bpf;bpf_prog_test_run' "$tmp/ks.folded" ||
			echo "no __sys_bpf stack: $(head -c 300 "$tmp/ks.folded" "$tmp/err")")"
	"$BPFREC" report -i "$tmp/bpf.data" --kallsyms "$tmp/empty.kallsyms" --folded >"$tmp/ks.folded" 2>"$tmp/err"
	result "--kallsyms of an empty file: no kernel frame named, said in one line" "$(
		[ "$(cat "$tmp/err")" = "bpfrec report: $tmp/bpf.data: kernel symbols not shown: the file holds none; $tmp/empty.kallsyms: no symbols" ] ||
			echo "stderr: $(head -c 300 "$tmp/err")"
		grep -q '__sys_bpf' "$tmp/ks.folded" && echo "__sys_bpf named")"
	# the lifecycle summary of the same file: the program's load and unload by
	# stat-prog.  Only the target is checked: libbpf's feature probes come and go
	# beside it, and one may be released from a deferred context after perf stops.
	"$BPFREC" report -i "$tmp/bpf.data" --lifecycle >"$tmp/life.txt" 2>"$tmp/err"
	result "--lifecycle: the summary of a file with samples, not its profile" "$(
		grep -q '^# event: ' "$tmp/life.txt" && echo "a profile header"
		grep -Eq '^  prog  xdp +[1-9][0-9]* +[1-9][0-9]* ' "$tmp/life.txt" ||
			echo "no xdp program created and destroyed: $(grep -A8 '^Objects by kind' "$tmp/life.txt")"
		sed -n '/^Alive at the end/,$p' "$tmp/life.txt" | grep -Eq "^  prog +$id " &&
			echo "program $id alive at the end: $(sed -n '/^Alive at the end/,$p' "$tmp/life.txt")"
		grep -Eq '^ +[0-9]+ stat-prog +[1-9]' "$tmp/life.txt" || echo "no stat-prog loader row")"
fi

# --- bad input ---------------------------------------------------------------

"$PERF" record -q -e dummy -o "$tmp/nosamples.data" -- true 2>/dev/null
one_line "--folded of a file without samples: exit 1, one line" 1 \
	"bpfrec report: $tmp/nosamples.data: no CPU samples" report -i "$tmp/nosamples.data" --folded
"$BPFREC" report -i "$tmp/nosamples.data" >"$tmp/out" 2>"$tmp/err"
result "without samples, the report is the BPF lifecycle summary" \
	"$(grep -q '^Objects by kind and type:' "$tmp/out" || echo "$(head -5 "$tmp/out" "$tmp/err")")"
one_line "--off-cpu of a file without off-CPU time: exit 1, one line" 1 \
	"bpfrec report: $tmp/hot.data: no offcpu-time event (record with --off-cpu)" \
	report -i "$tmp/hot.data" --off-cpu
one_line "unwritable --svg path: exit 1, one line, before reading" 1 \
	"bpfrec report: cannot write /nonexistent/dir/x.svg: No such file or directory" \
	report -i "$tmp/hot.data" --svg /nonexistent/dir/x.svg
"$BPFREC" report -i "$tmp/nosamples.data" --svg "$tmp/none.svg" >/dev/null 2>&1
result "--svg of a file without samples leaves no file" "$([ -e "$tmp/none.svg" ] && echo "$tmp/none.svg exists")"
one_line "--lifecycle with --folded: exit 2, one line" 2 \
	"bpfrec report: --lifecycle shows no profile: not with --sort, --off-cpu, --wall, --folded, --svg, --json or -g (see bpfrec report --help)" \
	report -i "$tmp/hot.data" --lifecycle --folded
one_line "bad --sort key: exit 2" 2 \
	"bpfrec report: bad --sort 'comm,cycles': keys are comm, dso, sym, bpf, pid (see bpfrec report --help)" \
	report -i "$tmp/hot.data" --sort comm,cycles
"$BPFREC" report -i "$tmp/hot.data" --folded --json >/dev/null 2>"$tmp/err"
result "--folded with --json: exit 2" "$([ $? -eq 2 ] || echo "exit $?")"

finish
