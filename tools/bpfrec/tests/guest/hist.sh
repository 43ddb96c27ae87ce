# SPDX-License-Identifier: GPL-2.0
#
# Guest tests of `bpfrec stat -b ID --hist`, sourced by run.sh (its
# pass/fail/result, $BPFREC, $tmp and $here): run-time distributions need
# BPF trampolines, which the host refuses.  POSIX sh and busybox only.
#
# stat-prog -m -w 100 (tests/stat/) loads a target whose every tenth run
# adds up 100 times as many numbers: 900 short runs and 100 long ones in
# 1000 test runs.  The modes are measured alone first by the kernel's
# BPF_PROG_TEST_RUN clock (stat-prog -w 100, -w 10000).  A second program
# is loaded beside it: the histogram must trace the first one alone, so
# that nothing else pays for it.  That is checked on the links that trace
# BPF programs (stat-prog -L), not by timing the second program: timings
# under TCG move by a few percent with the host's load.  What --hist costs
# is measured in bench/ (make bench-stat).

STAT_PROG=${STAT_PROG:-$here/stat-prog}
hs=$tmp/hist
mkdir -p "$hs"

# ran FILE: the ns/run stat-prog printed
ran() {
	awk '$1 == "ran" { print $3 }' "$1"
}

# hload OUT ARGS...: a held program in the background; its id in $hid, pid in
# $hpid.  Its load is waited for as long as the loader lives (up to 10 minutes):
# under TCG on a loaded host the verifier may take more than a few seconds.
hload() {
	out=$1
	shift
	"$STAT_PROG" "$@" >"$out" &
	hpid=$!
	hid=
	for _ in $(seq 3000); do
		hid=$(awk '$1 == "id" { print $2; exit }' "$out")
		[ -n "$hid" ] && break
		kill -0 $hpid 2>/dev/null || break
		sleep 0.2
	done
}

# jfield NAME FILE: the number of "NAME":N in FILE's first line
jfield() {
	sed -n "1s/.*\"$1\":\\([0-9]*\\).*/\\1/p" "$2"
}

# steady A B PCT: A and B (two measures of the same) within PCT % of each other
steady() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && b > 0 && d <= a * p / 100) }'
}

echo "# stat --hist: run-time distributions through fentry/fexit on the target alone"
# Under TCG the guest's clock runs with the host's: on a loaded host the same
# runs take longer some of the time.  The programs of each mode alone, under
# --hist too, say how steady this guest is: when a short run alone took 10
# times its mode, or the long runs alone spread more than 10 % (p50 to p90),
# the checks that need it cannot be judged here and say SKIP with the figures.
mode() {
	"$STAT_PROG" -w "$1" -r 1000 -k 100 >"$hs/mode.out" 2>&1 && ran "$hs/mode.out"
}
# hist_of ID OUT RUNS: stat -b ID --hist --json of RUNS test runs into OUT (the histogram's line)
hist_of() {
	"$BPFREC" stat -b "$1" --hist --json -- "$STAT_PROG" -i "$1" -r "$3" -k 100 >"$2.all" 2>"$2.err"
	grep '"buckets_ns"' "$2.all" >"$2"
}
# below OUT T: "B A", the runs of OUT's buckets below T ns, and above
below() {
	sed 's/.*"buckets_ns":{\([^}]*\)}.*/\1/' "$1" | tr ',' '\n' | tr -d '"' |
		awk -F: -v t="$2" '{ if ($1 * 2 <= t) b += $2; else a += $2 } END { print b + 0, a + 0 }'
}
short=$(mode 100)
long=$(mode 10000)
hload "$hs/bimodal.out" -m -w 100 -s 600
bim=$hid bim_pid=$hpid
hload "$hs/other.out" -w 100 -s 600
other=$hid other_pid=$hpid
hload "$hs/s.out" -w 100 -s 600
sid=$hid s_pid=$hpid
hload "$hs/l.out" -w 10000 -s 600
lid=$hid l_pid=$hpid
if [ -z "$short" ] || [ -z "$long" ] || [ -z "$bim" ] || [ -z "$other" ] || [ -z "$sid" ] || [ -z "$lid" ]; then
	fail "stat --hist: setup" "short '$short' long '$long' ids '$bim' '$other' '$sid' '$lid'"
elif hist_of "$bim" "$hs/h.line" 1000; rc=$?; grep -q 'refuses BPF trampolines' "$hs/h.line.err"; then
	# A kernel that refuses the trampolines on the target (6.1 on an XDP
	# program here) cannot give a histogram: each check says so.
	why=$(head -n 1 "$hs/h.line.err")
	for c in "900 runs below and 100 above" "p99 within 10 % of the long mode" \
		"bars as bpftrace draws them, and the percentiles" \
		"it traces the target alone"; do
		skip "stat -b --hist: $c" "kernel $(uname -r) refuses the trampolines it needs: $why"
	done
else
	hist_of "$sid" "$hs/s.line" 1000
	hist_of "$lid" "$hs/l.line" 200
	# the modes are 100 times apart in work: 10 times the short one splits them
	split=$(awk -v s="$short" 'BEGIN { print int(s * 10) }')
	# shellcheck disable=SC2046 # two numbers
	set -- $(below "$hs/h.line" "$split")
	b=${1:-} a=${2:-}
	# shellcheck disable=SC2046 # two numbers
	set -- $(below "$hs/s.line" "$split")
	s_out=${2:-}
	if [ "$s_out" = 0 ]; then
		result "stat -b --hist: 1000 runs, 900 below $split ns and 100 above (modes $short and $long ns)" \
			"$([ "$rc" -eq 0 ] && [ "$(jfield runs "$hs/h.line")" = 1000 ] && [ "$b" = 900 ] &&
				[ "$a" = 100 ] || echo "exit $rc, $b below, $a above: $(head -c 400 "$hs/h.line") $(head -c 200 "$hs/h.err")")"
	else
		skip "stat -b --hist: 900 runs below $split ns and 100 above" \
			"of the short runs alone $s_out took 10 times their mode: this guest's clock is not steady enough ($b below, $a above: $(head -c 300 "$hs/h.line"))"
	fi
	p99=$(jfield p99_ns "$hs/h.line")
	l50=$(jfield p50_ns "$hs/l.line")
	l90=$(jfield p90_ns "$hs/l.line")
	# The long mode is the long runs' p50 under --hist, taken right after
	# the bimodal histogram: stat-prog's own measure of it came first, and
	# a loaded host can change the runs' time in between (a p99 10 % off it
	# failed twice beside a kernel build while the long runs alone were
	# steady).  When the two measures of the long mode disagree by 10 %,
	# the clock moved between them, and the check cannot be judged. Nor
	# can it when the short runs measured alone strayed (s_out above): a
	# clock too unsteady for the split check is too unsteady for this one.
	if [ "$s_out" = 0 ] && steady "$l50" "$l90" 10 && steady "$l50" "$long" 10; then
		result "stat -b --hist: p99 $p99 ns within 10 % of the long mode's $l50 ns" \
			"$(steady "$l50" "$p99" 10 || echo "off by more than 10 %: $(head -c 400 "$hs/h.line")")"
	else
		skip "stat -b --hist: p99 within 10 % of the long mode" \
			"$s_out of the short runs alone took 10 times their mode, the long runs alone spread from p50 $l50 to p90 $l90 ns, and stat-prog measured their mode at $long ns: this guest's clock is not steady enough to judge 10 % (p99 $p99 ns)"
	fi
	"$BPFREC" stat -b "$bim" --hist -- "$STAT_PROG" -i "$bim" -r 1000 -k 100 \
		>"$hs/h.txt" 2>&1
	result "stat -b --hist: bars as bpftrace draws them, and the percentiles" \
		"$(grep -q "^@ns\[stat_target_with_a_long_name\]:$" "$hs/h.txt" &&
			grep -q '^\[[0-9]*[KM]*, [0-9]*[KM]*) *[0-9]* |@* *|$' "$hs/h.txt" &&
			grep -q "^prog $bim stat_target_with_a_long_name: 1000 runs, p50 [0-9]* ns, p90 [0-9]* ns, p99 [0-9]* ns, max [0-9]* ns$" "$hs/h.txt" ||
			tr '\n' ' ' <"$hs/h.txt" | head -c 600)"
	# The links that trace the two programs, before, during and after a
	# histogram of the first: its fentry (attach type 24) and fexit (25)
	# on it while it runs, none before or after, and none on the other.
	# traced FILE: "ID TYPE" of FILE's links on the two programs, sorted, one line
	traced() {
		awk -v b="$bim" -v o="$other" '$1 == "traces" && ($2 == b || $2 == o) { print $2, $3 }' "$1" |
			sort -n | tr '\n' ' '
	}
	"$STAT_PROG" -L >"$hs/links.before" 2>&1
	"$BPFREC" stat -b "$bim" --hist -- sh -c "'$STAT_PROG' -L >'$hs/links.during' 2>&1" \
		>"$hs/links.out" 2>&1
	rc=$?
	"$STAT_PROG" -L >"$hs/links.after" 2>&1
	before=$(traced "$hs/links.before")
	during=$(traced "$hs/links.during")
	after=$(traced "$hs/links.after")
	result "stat -b --hist: it traces the target alone (fentry and fexit on $bim, nothing on $other)" \
		"$([ "$rc" -eq 0 ] && [ -z "$before" ] && [ "$during" = "$bim 24 $bim 25 " ] && [ -z "$after" ] ||
			echo "exit $rc; links before: '$before', during: '$during', after: '$after'; stat-prog -L during: $(head -c 300 "$hs/links.during"); stat: $(head -c 300 "$hs/links.out")")"
fi
kill "$bim_pid" "$other_pid" "$s_pid" "$l_pid" 2>/dev/null
wait "$bim_pid" "$other_pid" "$s_pid" "$l_pid" 2>/dev/null

echo "# stat -b: tail calls, which neither a trampoline nor the run time stats can time"
# stat-prog -T holds a caller whose every run tail-calls its callee once
# (tests/stat/tailcall.bpf.c); stat-prog -T -i CALLER test-runs the caller
# and prints the tail calls since the load, as the programs count them.
# A tail call enters its callee past the callee's trampoline: -b says so
# in one line per callee at the start, and the callee timed on its own
# shows none of its tail-called runs.  Should a kernel ever time them,
# the line would be wrong there, and the checks fail to say so.
hload "$hs/tc.out" -T -s 600
tc_caller=$hid tc_pid=$hpid
tc_callee=$(awk '$1 == "callee" { print $2; exit }' "$hs/tc.out")
# tc_run N OUT ARGS...: stat ARGS while the caller runs 1000 times, the
# tail calls since the load then N; OUT.all, OUT.err, and OUT.wl (stat-prog's)
tc_run() {
	_n=$1 _o=$2
	shift 2
	"$BPFREC" stat "$@" --json -- sh -c "'$STAT_PROG' -T -i $tc_caller -r 1000 -k 100 >'$_o.wl'" \
		>"$_o.all" 2>"$_o.err"
	_rc=$?
	grep -q "^tail calls $_n\$" "$_o.wl" 2>/dev/null || echo "exit $_rc, not $_n tail calls: $(cat "$_o.wl" "$_o.err" 2>/dev/null | tr '\n' ' ' | head -c 300)"
}
# runs_of ID OUT: the runs of prog ID in OUT.all's count lines
runs_of() {
	grep "\"who\":\"prog $1 " "$2.all" | sed -n 's/.*"runs":\([0-9]*\).*/\1/p' | head -n 1
}
# callee_line OUT: stderr's lines that say the callee is tail-called by the caller
callee_line() {
	grep -c "^bpfrec stat: -b: prog $tc_callee stat_tail_callee, tail-called by prog $tc_caller (map [0-9]*), cannot be timed apart: " "$1.err"
}
if [ -z "$tc_caller" ] || [ -z "$tc_callee" ]; then
	fail "stat -b tail calls: setup" "ids '$tc_caller' '$tc_callee': $(head -c 300 "$hs/tc.out")"
else
	why=$(tc_run 1000 "$hs/tc1" -b "$tc_caller" --trampoline)
	if grep -q 'refuses BPF trampolines' "$hs/tc1.err"; then
		for c in "the caller's 1000 runs, one line for its callee" \
			"the callee alone: none of its 1000 tail-called runs timed"; do
			skip "stat -b tail calls: $c" "kernel $(uname -r) refuses the trampolines: $(head -n 1 "$hs/tc1.err")"
		done
	else
		result "stat -b tail calls: the caller's 1000 runs, one line for its callee $tc_callee" \
			"$why$([ "$(runs_of "$tc_caller" "$hs/tc1")" = 1000 ] && [ "$(callee_line "$hs/tc1")" = 1 ] ||
				echo "runs $(runs_of "$tc_caller" "$hs/tc1"): $(head -c 500 "$hs/tc1.err")")"
		# the kernel's side, tried: the callee's own trampoline sees none of them
		why=$(tc_run 2000 "$hs/tc2" -b "$tc_callee" --trampoline)
		result "stat -b tail calls: the callee alone: none of its 1000 tail-called runs timed, and the line says why" \
			"$why$([ "$(runs_of "$tc_callee" "$hs/tc2")" = 0 ] &&
				grep -q "^bpfrec stat: -b: prog $tc_callee stat_tail_callee is in prog array map [0-9]*: its runs reached by tail call are not counted" "$hs/tc2.err" ||
				echo "runs $(runs_of "$tc_callee" "$hs/tc2") of 1000 (a kernel that times them makes the line wrong): $(head -c 400 "$hs/tc2.err")")"
	fi
	# --hist: the caller's histogram counts its 1000 runs, the callee's own
	# would need the callee's entry and exit, which tail calls skip
	why=$(tc_run 3000 "$hs/tc3" -b "$tc_caller,$tc_callee" --hist)
	cr=$(grep "^{\"id\":$tc_caller,.*\"buckets_ns\"" "$hs/tc3.all" | sed -n 's/.*"runs":\([0-9]*\).*/\1/p')
	ce=$(grep "^{\"id\":$tc_callee,.*\"buckets_ns\"" "$hs/tc3.all" | sed -n 's/.*"runs":\([0-9]*\).*/\1/p')
	if grep -q 'refuses BPF trampolines' "$hs/tc3.err"; then
		for c in "the caller's histogram: 1000 runs" "the callee's own histogram: 1000 runs"; do
			skip "stat -b --hist tail calls: $c" "kernel $(uname -r) refuses the trampolines --hist needs: $(head -n 1 "$hs/tc3.err")"
		done
	else
		result "stat -b --hist tail calls: the caller's histogram: 1000 runs (its callee's time in them)" \
			"$why$([ "$cr" = 1000 ] || echo "caller runs '$cr': $(head -c 400 "$hs/tc3.all") $(head -c 300 "$hs/tc3.err")")"
		if [ "$ce" = 1000 ]; then
			fail "stat -b --hist tail calls: the callee's own histogram: 1000 runs" \
				"kernel $(uname -r) timed the tail-called runs, and bpfrec said it cannot: $(head -c 300 "$hs/tc3.err")"
		elif [ "$ce" = 0 ] && [ "$(callee_line "$hs/tc3")" = 1 ]; then
			skip "stat -b --hist tail calls: the callee's own histogram: 1000 runs" \
				"kernel $(uname -r) enters a tail-called program past its trampoline (0 of 1000 runs timed), as bpfrec said at the start: $(grep -m 1 "tail-called by" "$hs/tc3.err")"
		else
			fail "stat -b --hist tail calls: the callee's own histogram: 1000 runs, or 0 and the line" \
				"callee runs '$ce': $(head -c 400 "$hs/tc3.all") $(head -c 300 "$hs/tc3.err")"
		fi
	fi
fi
kill "$tc_pid" 2>/dev/null
wait "$tc_pid" 2>/dev/null
