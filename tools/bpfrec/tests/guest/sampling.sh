# SPDX-License-Identifier: GPL-2.0
#
# Guest tests of the profilers, sourced by run.sh (its pass/fail/result,
# $BPFREC, $tmp and $here), with the checks the host tests use
# (profile.sh, from tests/lib/).  POSIX sh and busybox tools only.
#
# - cpu-clock -g on stat-prog -w (tests/stat/): a BPF program kept busy
#   with BPF_PROG_TEST_RUN, unloaded before the report, which names it
#   for most of the samples in BPF code;
# - --off-cpu on the sleeper (tests/offcpu/): ten sleeps of 100 ms in
#   sleep_in_known_place() (its address in sleeper.syms, from nm at build
#   time: busybox has no nm) are 1 s off CPU within 5 %; with a threshold
#   of 50 ms they are ten direct samples, with 200 ms summed at the stop
#   (two recorders of the same run), the same total within 2 %;
#   `report --off-cpu --folded` shows the stack through main into the
#   function with the time the samples add up to.  The sampled cpu-clock
#   beside it records the mappings that name user frames.  A host busy
#   enough delays the guest's timers: the time off CPU is then between the
#   1 s asked for and the time the sleeps took by the sleeper's clock.

STAT_PROG=${STAT_PROG:-$here/stat-prog}
SLEEPER=${SLEEPER:-$here/sleeper}
. "$here/profile.sh"
sp=$tmp/sampling
mkdir -p "$sp"

# --- a busy BPF program, named once unloaded ---------------------------------
"$BPFREC" record -e cpu-clock -F 999 -g -o "$sp/bpf.data" -- "$STAT_PROG" -w 1000 -r 20000 -k 1000 \
	>"$sp/bpf.out" 2>"$sp/bpf.err"
rc=$?
id=$(awk '$1 == "id" { print $2 }' "$sp/bpf.out")
prog="stat_target_with_a_long_name (id $id)"
"$BPFREC" script -i "$sp/bpf.data" >"$sp/bpf.script" 2>&1
result "sampling: stat-prog recorded, its program $id unloaded in the file" \
	"$([ $rc -eq 0 ] && [ -n "$id" ] || echo "exit $rc: $(tail -n 2 "$sp/bpf.err" | tr '\n' ' ')")$(
	   awk -v id="$id" '$5 == "PROG_UNLOAD" && $6 == id { n++ } END { if (n != 1) print n + 0 " PROG_UNLOAD of it" }' \
		"$sp/bpf.script")"
"$BPFREC" report -i "$sp/bpf.data" --sort dso,bpf --json >"$sp/bpf.json" 2>"$sp/bpf.rerr"
read -r mine all <<EOF
$(bpf_share "$sp/bpf.json" "$prog")
EOF
result "sampling: most samples in BPF code are $prog's ($mine of $all)" \
	"$([ "$all" -ge 20 ] && [ $((mine * 2)) -gt "$all" ] || echo "$mine of $all: $(grep '"\[bpf\]"' "$sp/bpf.json" | head -n 3 | tr '\n' ' ')")"

# --- off-CPU: direct samples, sums, folded stacks ---------------------------
# One run of the sleeper, recorded twice at once: by a recorder at 50 ms
# (direct samples; cpu-clock beside it for the user mappings), itself
# the command of one at 200 ms (sums), which follows its children.
read -r fstart fsize <"$here/sleeper.syms"
"$BPFREC" record --off-cpu --off-cpu-state RSD --off-cpu-thresh 200 -o "$sp/sums.data" -- \
	"$BPFREC" record --off-cpu --off-cpu-state RSD --off-cpu-thresh 50 -e cpu-clock -F 99 \
	-o "$sp/direct.data" -- "$SLEEPER" -n 10 -m 100 >"$sp/sleeper.out" 2>"$sp/offcpu.err"
rc=$?
sleeper_ran "$sp/sleeper.out" "$sp/offcpu.err"
sed 's/^/# record: /' "$sp/offcpu.err"

# on_time SUM: why SUM ns is not the time off CPU of the sleeps, or nothing:
# 1 s within 5 %, unless the sleeps took longer than that by the sleeper's
# own clock; never more than that clock. It can be less than the 1 s asked
# for: each interval starts when the task leaves the CPU, after it armed its
# timer, and the host may take the emulated CPU away between the two (ten
# sleeps gave 998.9 ms in a rehearsal beside kernel builds). A lost sleep
# takes 100 ms away, a lost sample of the 50 ms threshold at least 50 ms:
# below 95 % either way.
on_time() {
	if ! awk -v s="$1" -v c="$slept" 'BEGIN { exit !(s >= 950000000 && s <= c) }'; then
		echo "$1 ns off CPU, want 0.95 s to the $slept ns the sleeps took by the sleeper's clock"
	elif within "$slept" 1000000000 5 && ! within "$1" 1000000000 5; then
		echo "$1 ns off CPU, want 1 s within 5 %"
	fi
}

if [ $rc -ne 0 ] || [ -z "$slept" ]; then
	fail "off-CPU: the sleeper recorded at 50 and 200 ms at once" \
		"exit $rc: $(tail -n 2 "$sp/offcpu.err" | tr '\n' ' ')"
else
	within "$slept" 1000000000 5 ||
		echo "# note: the sleeps took $slept ns by the sleeper's clock: 1 s within 5 % not asked"

	# 1. 50 ms: each 100 ms sleep is a sample of its own, written as it ended
	read -r n all sum ntimes pids <<EOF
$(offcpu_stats "$sp/direct.data" "$fstart" "$fsize" sleep_in_known_place 50000000)
EOF
	direct_sum=$sum direct_pids=$pids
	# sleeps a busy host stretched past 200 ms: samples of their own at 200 ms too
	over=$(awk '$1 >= 200000000' "$tmp/durations" | wc -l)
	why=
	[ "$n" -le 10 ] && [ "$n" -ge $((10 - unmeasured)) ] ||
		why="$n samples of 50 ms or more in the known stack, want 10 ($unmeasured unmeasured)"
	[ -z "$why" ] && [ "$ntimes" != $((n + (all > n))) ] && why="$ntimes distinct times of $all samples"
	[ -z "$why" ] && [ "$unmeasured" = 0 ] && why=$(on_time "$sum")
	# Each at least the threshold: that is what makes it direct. Not 100 ms each: under
	# TCG an interval can be up to 8 % short now and then (92.5 ms seen), when the host
	# takes the emulated CPU away between the sleep's timer and the switch (on_time).
	[ -z "$why" ] && ! awk '$1 < 50000000 { exit 1 }' "$tmp/durations" &&
		why="a sleep of 100 ms lasted $(tr '\n' ' ' <"$tmp/durations")"
	grep -q "intervals >= 50 ms as they ended" "$sp/offcpu.err" ||
		why=${why:-"record said: $(grep off-CPU "$sp/offcpu.err")"}
	result "off-CPU --off-cpu-thresh 50: ten direct samples of 100 ms in the known function, $sum ns" "$why"

	# the folded stacks: through main into the function, as much time as its samples
	"$BPFREC" report -i "$sp/direct.data" --off-cpu --folded >"$sp/folded" 2>"$sp/folded.err"
	rc=$?
	"$BPFREC" report -i "$sp/direct.data" --off-cpu --json >"$sp/table.json" 2>&1
	sed 's/^/# folded: /' "$sp/folded"
	folded_known "$sp/folded" sleeper sleep_in_known_place >"$sp/folded.stats"
	read -r lines fsum bad <"$sp/folded.stats"
	# What --folded must print: report's stacks as JSON, each as "comm;stack ns", summed
	# by that text. Two stacks can read the same (an [unknown] user frame at another
	# address, another offset in the same kernel function), and folded output is one line
	# per text, so its lines are not compared with the number of stacks.
	sed -n 's/^{"comm":"\([^"]*\)","offcpu_ns":\([0-9]*\),"intervals":[0-9]*,"stack":"\(.*\)"}$/\1;\3 \2/p' \
		"$sp/table.json" |
		awk '{ i = match($0, / [0-9]+$/); s[substr($0, 1, i - 1)] += substr($0, i + 1) }
		     END { for (k in s) if (s[k] > 0) printf "%s %.0f\n", k, s[k] }' | sort >"$sp/folded.want"
	sort "$sp/folded" >"$sp/folded.got"
	why=
	[ $rc -eq 0 ] && [ ! -s "$sp/folded.err" ] || why="exit $rc: $(head -c 200 "$sp/folded.err")"
	[ -z "$why" ] && [ "$bad" != - ] && why="line $bad"
	[ -z "$why" ] && [ "$lines" -lt 1 ] && why="no line sleeper;...;main;...;sleep_in_known_place;..."
	[ -z "$why" ] && [ "$fsum" != "$sum" ] && why="the function's lines sum to $fsum ns, its samples to $sum"
	[ -z "$why" ] && ! [ -s "$sp/folded.want" ] && why="report --json: $(head -c 200 "$sp/table.json")"
	[ -z "$why" ] && ! cmp -s "$sp/folded.want" "$sp/folded.got" &&
		why="$(wc -l <"$sp/folded.got") lines, report's stacks fold to $(wc -l <"$sp/folded.want"): $(diff "$sp/folded.want" "$sp/folded.got" | grep '^[-+][^-+]' | head -n 2 | cut -c1-160)"
	result "off-CPU --folded: sleeper;...;main;...;sleep_in_known_place;... lines, $fsum ns as the samples; one line per stack text of report --json" "$why"

	# 2. 200 ms: the same sleeps summed, written when the recording stopped
	read -r n all sum ntimes pids <<EOF
$(offcpu_stats "$sp/sums.data" "$fstart" "$fsize" sleep_in_known_place 200000000)
EOF
	why=
	[ "$ntimes" = $((over + 1)) ] ||
		why="$ntimes distinct times, want 1 (the stop) + $over (sleeps of 200 ms or more)"
	[ -z "$why" ] && [ "$pids" != "$direct_pids" ] && why="samples of pids $pids, the sleeper is $direct_pids"
	[ -z "$why" ] && [ "$unmeasured" = 0 ] && why=$(on_time "$sum")
	result "off-CPU --off-cpu-thresh 200: the sleeps summed at the stop, $sum ns" "$why"
	# The two recorders run one after the other on each sched_switch: the inner
	# one's interval starts after the outer one's program has run, which reads two
	# stacks, and ends after the outer one's shorter end. When the guest runs the
	# sleeps on time that difference is far below 2 %. On a debug guest beside
	# another guest, with the sleeps 10 % late, the totals once differed by 5 %
	# (53 ms), so they are compared only when the sleeps were on time.
	if [ "$unmeasured" != 0 ]; then
		:
	elif within "$slept" 1000000000 5; then
		result "off-CPU: direct and summed totals of the same sleeps agree within 2 % ($direct_sum, $sum ns)" \
			"$(within "$sum" "$direct_sum" 2 || echo "summed $sum ns, direct $direct_sum ns")"
	else
		skip "off-CPU: direct and summed totals of the same sleeps agree within 2 %" \
			"the sleeps took $slept ns, not 1 s within 5 %: the guest is too slow to compare two recorders of one switch ($direct_sum, $sum ns)"
	fi
fi
