#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of `bpfrec diff`: run as root on the host kernel.
#
#   BPFREC=path/to/bpfrec STAT_PROG=path/to/stat-prog tests/host/diff.sh
#
# The workload is stat-prog (tests/stat/) copied as h25diff: its program
# adds up 2000 numbers per run (-w), 20000 runs, counted by
# `stat --all-progs -o`; the slower one adds up 6000, three times as many,
# which makes each run far more than 20 % slower (the loop is most of a
# run) even when the load of the machine blurs the two measurements.  Other tests may run
# stat-prog meanwhile: --filter h25diff keeps the programs this one loaded.  --fail-on 5 must exit
# 1 on the slower one and name the program, 0 on the file against itself.
# Two profiles are compared by each symbol's share of the samples: a
# cpu-clock profile of sample-work's getppid() loop against one of its
# busy loop gives busy_inner() about all of the second one's samples and
# none of the first's, so --fail-on 5 exits 1 and names busy_inner; a
# profile against itself changes no share and exits 0.
# Last line: "diff: N passed, N failed, N skipped"; exit 1 if anything failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
STAT_PROG=${STAT_PROG:-$here/../../.output/stat-prog}
WORK=${WORK:-$here/../../.output/sample-work}

. "$here/lib.sh"

host_setup diff "$BPFREC" "$STAT_PROG" "$WORK"
trap 'rm -rf "$tmp"' EXIT

see="(see bpfrec diff --help)"
one_line "one file exits 2" 2 "bpfrec diff: give two files: A (before) and B (after) $see" diff a
one_line "three files exit 2" 2 "bpfrec diff: unexpected argument 'c': give two files $see" diff a b c
one_line "bad --fail-on exits 2" 2 "bpfrec diff: --fail-on wants a percentage, not 'x' $see" \
	diff --fail-on x a b
one_line "a missing file: one line, exit 1" 1 \
	"bpfrec diff: $tmp/none: No such file or directory" diff "$tmp/none" "$tmp/none"

cp "$STAT_PROG" "$tmp/h25diff"
for w in 2000 6000; do
	"$BPFREC" stat --all-progs -o "$tmp/w$w.data" -- "$tmp/h25diff" -w $w -r 20000 -k 1000 \
		>"$tmp/w$w.out" 2>&1 || { fail "stat --all-progs -o (-w $w)" "$(tail -2 "$tmp/w$w.out")"; }
done
one_line "a file that is no perf.data: one line, exit 1" 1 \
	"bpfrec diff: $tmp/w2000.out: not a perf.data file (bad magic)" \
	diff "$tmp/w2000.out" "$tmp/w2000.data"

"$BPFREC" diff --filter h25diff --fail-on 5 "$tmp/w2000.data" "$tmp/w6000.data" \
	>"$tmp/slow.out" 2>"$tmp/slow.err"
rc=$?
result "--fail-on 5: a workload made slower exits 1" "$([ $rc -eq 1 ] || echo "exit $rc: $(cat "$tmp/slow.out")")"
result "--fail-on 5: the program named, its change over 20 %" \
	"$(awk '/^bpfrec diff: stat_target_with_a_long_name: ns\/run \+[0-9.]+ %, more than --fail-on 5$/ { split($5, a, "+"); if (a[2] + 0 >= 20) ok = 1 } END { if (!ok) print "no" }' "$tmp/slow.err" | grep -q . && cat "$tmp/slow.err")"
result "the row: 20000 runs in both" \
	"$(awk '$1 == "stat_target_with_a_long_name" && $2 == 20000 && $3 == 20000' "$tmp/slow.out" | grep -q . || cat "$tmp/slow.out")"
"$BPFREC" diff --filter h25diff --fail-on 5 "$tmp/w2000.data" "$tmp/w2000.data" \
	>"$tmp/same.out" 2>"$tmp/same.err"
rc=$?
result "--fail-on 5: a file against itself exits 0, +0.0 %" \
	"$([ $rc -eq 0 ] && awk '$1 == "stat_target_with_a_long_name" && $6 == "+0.0%"' "$tmp/same.out" | grep -q . ||
		echo "exit $rc: $(cat "$tmp/same.out" "$tmp/same.err")")"
"$BPFREC" diff --fail-on 5 "$tmp/w6000.data" "$tmp/w2000.data" --filter h25diff >"$tmp/fast.out" 2>&1
result "--fail-on 5: faster is no regression, exit 0" "$([ $? -eq 0 ] || cat "$tmp/fast.out")"

# Profiles: the share of each symbol in the samples whose leaf it is.
"$BPFREC" record -e cpu-clock -o "$tmp/sys.data" -- "$WORK" getppid 1000000 >"$tmp/sys.out" 2>&1 ||
	fail "record -e cpu-clock of the getppid() loop" "$(tail -2 "$tmp/sys.out")"
"$BPFREC" record -e cpu-clock -o "$tmp/busy.data" -- "$WORK" busy 1 >"$tmp/busy.out" 2>&1 ||
	fail "record -e cpu-clock of the busy loop" "$(tail -2 "$tmp/busy.out")"
"$BPFREC" diff --fail-on 5 "$tmp/sys.data" "$tmp/busy.data" >"$tmp/prof.out" 2>"$tmp/prof.err"
rc=$?
result "profiles: a symbol whose share grew by more than 5 points exits 1" \
	"$([ $rc -eq 1 ] || echo "exit $rc: $(head -5 "$tmp/prof.out")")"
# busy_inner's share in each file is what report gives it, whatever else took samples:
# on a busy machine, interrupts charged to the loop take a few points of it.
"$BPFREC" report -i "$tmp/sys.data" --json >"$tmp/sys.json" 2>&1
"$BPFREC" report -i "$tmp/busy.data" --json >"$tmp/busy.json" 2>&1
result "profiles: busy_inner named, with the share report gives it in each file (none, then the most)" "$(
	python3 - "$tmp/sys.json" "$tmp/busy.json" "$tmp/prof.out" "$tmp/prof.err" <<'PY'
import json, re, sys

def shares(path):
    rows = [json.loads(l) for l in open(path)]
    total = sum(r["samples"] for r in rows)
    by_sym = {}
    for r in rows:
        by_sym[r["sym"]] = by_sym.get(r["sym"], 0) + r["samples"]
    return {k: 100.0 * v / total for k, v in by_sym.items()}

a, b = shares(sys.argv[1]), shares(sys.argv[2])
row = [l.split() for l in open(sys.argv[3]) if l.split()[:1] == ["busy_inner"]]
err = re.findall(r"^bpfrec diff: busy_inner: share \+([0-9.]+) points, more than --fail-on 5$",
                 open(sys.argv[4]).read(), re.M)
want_a, want_b = a.get("busy_inner", 0.0), b.get("busy_inner", 0.0)
if len(row) != 1:
    print("busy_inner rows:", row)
elif abs(float(row[0][1].rstrip("%")) - want_a) > 0.006 or abs(float(row[0][2].rstrip("%")) - want_b) > 0.006:
    print("diff says %s then %s, report %.2f%% then %.2f%%" % (row[0][1], row[0][2], want_a, want_b))
elif want_a >= 5 or max(b, key=b.get) != "busy_inner":
    print("busy_inner %.2f%% of the getppid loop's samples; the busy loop's most: %s" % (want_a, max(b, key=b.get)))
elif len(err) != 1 or abs(float(err[0]) - (want_b - want_a)) > 0.051:
    print("stderr says %s, want +%.1f points" % (err, want_b - want_a))
PY
)"
"$BPFREC" diff --fail-on 5 "$tmp/busy.data" "$tmp/busy.data" >"$tmp/prof-same.out" 2>&1
rc=$?
result "profiles: a profile against itself exits 0, busy_inner +0.00pp" \
	"$([ $rc -eq 0 ] && awk '$1 == "busy_inner" && $4 == "+0.00pp"' "$tmp/prof-same.out" | grep -q . ||
		echo "exit $rc: $(head -3 "$tmp/prof-same.out")")"

echo "diff: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
