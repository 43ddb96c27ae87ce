# SPDX-License-Identifier: GPL-2.0
#
# Guest tests of `bpfrec stat`, sourced by run.sh (its pass/fail/result,
# $BPFREC, $tmp and $here): the modes that need BPF trampolines, which
# the host kernel refuses, run here.  POSIX sh and busybox tools only.
#
# stat-prog (tests/stat/) loads an XDP program with BTF and runs it an
# exact number of times with BPF_PROG_TEST_RUN.

STAT_PROG=${STAT_PROG:-$here/stat-prog}
st=$tmp/stat
mkdir -p "$st"

# field NAME FILE: the values of JSON member NAME, one per line
field() {
	sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p" "$2"
}

# sum NAME FILE
sum() {
	field "$1" "$2" | awk '{ s += $1 } END { print s + 0 }'
}

# load_target OUT [ARGS]: a held target in the background; its id in $tid, pid in $tpid
load_target() {
	out=$1
	shift
	: >"$out"
	"$STAT_PROG" "$@" >"$out" &
	tpid=$!
	tid=
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		tid=$(awk '$1 == "id" { print $2; exit }' "$out")
		[ -n "$tid" ] && break
		sleep 0.2
	done
}

echo "# stat: -b needs BPF trampolines, which this kernel allows (the host's refuses them)"
if [ ! -x "$STAT_PROG" ]; then
	fail "stat: setup" "$STAT_PROG is missing"
	return 0 2>/dev/null || exit 1
fi

# --- -b: exact runs, cost per run ------------------------------------------
load_target "$st/t1.out" -s 30
t1=$tid p1=$tpid
"$BPFREC" stat -b "$t1" -e cpu-clock --json -- "$STAT_PROG" -i "$t1" -r 1000 -k 100 \
	>"$st/b1.json" 2>"$st/b1.err"
rc=$?
runs=$(field runs "$st/b1.json")
val=$(field value "$st/b1.json")
per=$(field metric "$st/b1.json")
result "stat -b: a target run 1000 times shows exactly 1000 runs" \
	"$([ "$rc" -eq 0 ] && [ "$runs" = 1000 ] || echo "exit $rc, runs '$runs': $(head -c 300 "$st/b1.err")")"
result "stat -b: cpu-clock per run > 0" \
	"$(awk -v v="$val" -v p="$per" 'BEGIN { if (!(v > 0 && p > 0)) print "value " v ", per run " p }')"
result "stat -b: the target's BTF name" \
	"$(grep -q "\"who\":\"prog $t1 stat_target_with_a_long_name\"" "$st/b1.json" || echo "not in: $(head -c 300 "$st/b1.json")")"

# --- -b: two targets at once, intervals --------------------------------------
load_target "$st/t2.out" -s 30
t2=$tid p2=$tpid
"$BPFREC" stat -b "$t1,$t2" -e cpu-clock,task-clock -I 100 --json -- \
	sh -c "'$STAT_PROG' -i $t1 -r 300 -k 100 && '$STAT_PROG' -i $t2 -r 500 -k 100" \
	>"$st/b2.json" 2>"$st/b2.err"
rc=$?
grep "\"who\":\"prog $t1 " "$st/b2.json" | grep '"event":"cpu-clock"' >"$st/b2.t1"
grep "\"who\":\"prog $t2 " "$st/b2.json" | grep '"event":"cpu-clock"' >"$st/b2.t2"
r1=$(sum runs "$st/b2.t1")
r2=$(sum runs "$st/b2.t2")
result "stat -b two targets -I: 300 and 500 runs over the intervals" \
	"$([ "$rc" -eq 0 ] && [ "$r1" = 300 ] && [ "$r2" = 500 ] || echo "exit $rc, runs $r1 and $r2: $(head -c 300 "$st/b2.err")")"
result "stat -b: two events per target per interval" \
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
load_target "$st/nobtf.out" -n -s 10
"$BPFREC" stat -b "$tid" 1 >/dev/null 2>"$st/nobtf.err"
rc=$?
result "stat -b: a target without BTF: one line, exit 1" \
	"$([ "$rc" -eq 1 ] && [ "$(cat "$st/nobtf.err")" = "bpfrec stat: -b: program $tid (stat_no_btf) has no BTF: fentry/fexit need its function's BTF to attach" ] ||
	   echo "exit $rc: $(cat "$st/nobtf.err")")"
kill "$tpid" 2>/dev/null
wait "$tpid" 2>/dev/null
"$BPFREC" stat -b 4000000000 1 >/dev/null 2>"$st/noid.err"
rc=$?
result "stat -b: an id that is no program: one line, exit 1" \
	"$([ "$rc" -eq 1 ] && [ "$(cat "$st/noid.err")" = "bpfrec stat: -b: no BPF program with id 4000000000" ] ||
	   echo "exit $rc: $(cat "$st/noid.err")")"

# --- --all-progs here too ------------------------------------------------------
"$BPFREC" stat --all-progs --json -- "$STAT_PROG" -r 777 >"$st/ap.json" 2>"$st/ap.err"
rc=$?
id=$(awk '$1 == "id" { print $2; exit }' "$st/ap.json")
line=$(grep "\"id\":$id," "$st/ap.json")
result "stat --all-progs: a program loaded, run 777 times and freed" \
	"$(echo "$line" | grep -q '"runs":777,.*"loader_comm":"stat-prog","state":"new,freed"' || echo "exit $rc, id $id: $line $(head -c 200 "$st/ap.err")")"
