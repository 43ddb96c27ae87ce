#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of where a thread's time goes, whole: `record --off-cpu
# --wakers` (who woke each interval) and `report --wall` (CPU samples and
# off-CPU intervals in one profile).  Root, on the host kernel.
#
#   BPFREC=path/to/bpfrec PROGS=path/to/.output tests/host/wall.sh
#
# wake-pair (tests/unwind/): a consumer thread blocks ten times on a pipe
# in consume_known() through libc's read(); a producer thread wakes it
# each time by write() from produce_known(), after a nanosleep(), and
# waits for its acknowledgement: every blocked read ends by that write.
# busy-nap: five rounds of 100 ms busy in spin_known() and 100 ms asleep
# in nap_known() (through libc's nanosleep()); it prints its wall time.
# Both are built without frame pointers: recorded with --call-graph dwarf.
# The proportions are computed from the recording (the wall time by the
# workload's clock, which is the recording's); no time is asserted.
# Last line: "wall: N passed, N failed, N skipped"; exit 1 if anything failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
PROGS=${PROGS:-$here/../../.output}

. "$here/lib.sh"

host_setup wall "$BPFREC" "$PROGS/wake-pair" "$PROGS/busy-nap"

trap 'rm -rf "$tmp"' EXIT

one_line "--wakers without --off-cpu exits 2" 2 \
	"bpfrec record: the --off-cpu-* options and --wakers need --off-cpu (see bpfrec record --help)" \
	record -o "$tmp/usage.data" --wakers -- true
one_line "report --wall --off-cpu exits 2" 2 \
	"bpfrec report: --wall shows off-CPU time already: drop --off-cpu (see bpfrec report --help)" \
	report -i "$tmp/usage.data" --wall --off-cpu

# 1. wakers: the consumer's blocked time, woken from produce_known()
if "$BPFREC" record --off-cpu --wakers --call-graph dwarf -o "$tmp/wake.data" -- \
	"$PROGS/wake-pair" >/dev/null 2>"$tmp/wake.err"; then
	"$BPFREC" report -i "$tmp/wake.data" --off-cpu --folded >"$tmp/wake.folded" 2>>"$tmp/wake.err"
	# the consumer's blocked reads: its stacks through consume_known();
	# their wakers after "--", leaf first, ending in the waker's name
	read -r part blocked n < <(awk '/^consumer;.*;consume_known;read;/ {
			all += $NF; n++
			if ($0 ~ /;--;.*;__write;produce_known;.*;producer [0-9]+$/) by += $NF
		}
		END { if (all) printf "%.4f %d %d\n", by / all, all, n; else print "0 0 0" }' \
		"$tmp/wake.folded")
	result "--wakers: produce_known() woke the consumer for $part of its $blocked ns blocked (>= 0.95)" "$(
		awk -v p="$part" 'BEGIN { exit !(p >= 0.95) }' ||
			grep '^consumer' "$tmp/wake.folded" | sed 's/.*;--;/waker: /' | cut -c1-300
		grep -q "off-CPU: [0-9]* of the intervals with their waker (event offcpu-waker)" \
			"$tmp/wake.err" || grep off-CPU "$tmp/wake.err")"
	# the same file read by the JSON and text outputs
	"$BPFREC" report -i "$tmp/wake.data" --off-cpu >"$tmp/wake.txt" 2>>"$tmp/wake.err"
	result "report --off-cpu lists the waker under the stack" "$(
		grep -q '^    woken by producer:$' "$tmp/wake.txt" || head -c 300 "$tmp/wake.txt")"
	# without --wakers: no waker part, no waker event
	"$BPFREC" record --off-cpu --call-graph dwarf -o "$tmp/nowake.data" -- "$PROGS/wake-pair" \
		>/dev/null 2>&1
	"$BPFREC" report -i "$tmp/nowake.data" --off-cpu --folded >"$tmp/nowake.folded" 2>&1
	result "without --wakers, no waker in the stacks" "$(
		! grep -q ';--;' "$tmp/nowake.folded" || grep -m 1 ';--;' "$tmp/nowake.folded" | cut -c1-200)"
else
	fail "--off-cpu --wakers records" "$(tail -n 1 "$tmp/wake.err")"
fi

# 2. --wall: the busy and the sleeping halves, each in its function
if "$BPFREC" record -e cpu-clock -F 999 --off-cpu --off-cpu-state RSD --call-graph dwarf \
	-o "$tmp/wall.data" -- "$PROGS/busy-nap" >"$tmp/wall.out" 2>"$tmp/wall.err"; then
	wall=$(awk '$1 == "wall" { print $2 }' "$tmp/wall.out")
	"$BPFREC" report -i "$tmp/wall.data" --wall --folded >"$tmp/wall.folded" 2>>"$tmp/wall.err"
	read -r spin spin_on nap nap_off < <(awk '/^busy-nap;/ {
			if ($0 ~ /;main;spin_known;/) { spin += $NF; if ($0 ~ /;\[on CPU\] [0-9]+$/) on += $NF }
			if ($0 ~ /;main;nap_known;[^ ]*;\[off CPU: S\] [0-9]+$/) { nap += $NF; off += $NF }
			else if ($0 ~ /;main;nap_known;/) nap += $NF
		}
		END { print spin + 0, on + 0, nap + 0, off + 0 }' "$tmp/wall.folded")
	result "--wall: spin_known and nap_known account for >= 95 % of the $wall ns of wall time" "$(
		awk -v s="$spin" -v n="$nap" -v w="$wall" 'BEGIN { r = (s + n) / w; exit !(r >= 0.95 && r <= 1.05) }' ||
			echo "spin_known $spin ns, nap_known $nap ns of $wall ns")"
	result "--wall: split within 5 % between them (spin_known $spin ns, nap_known $nap ns)" "$(
		awk -v s="$spin" -v n="$nap" 'BEGIN { r = s / (s + n); exit !(r >= 0.45 && r <= 0.55) }' ||
			echo "spin_known's share $(awk -v s="$spin" -v n="$nap" 'BEGIN { print s / (s + n) }')")"
	result "--wall: spin_known has CPU samples, nap_known's sleeps end in [off CPU: S]" "$(
		[ "$spin_on" -gt 0 ] || echo "no [on CPU] in spin_known"
		awk -v n="$nap" -v o="$nap_off" 'BEGIN { exit !(o >= n * 0.95) }' ||
			echo "nap_known: $nap_off of $nap ns in state S")"
	"$BPFREC" report -i "$tmp/wall.data" --wall --json >"$tmp/wall.json" 2>>"$tmp/wall.err"
	result "--wall --json: every line has a state and ns, the same total as --folded" "$(
		awk '{ a += $NF } END { print a }' "$tmp/wall.folded" >"$tmp/sum.folded"
		sed -n 's/.*"ns":\([0-9]*\).*/\1/p' "$tmp/wall.json" | awk '{ a += $1 } END { print a }' \
			>"$tmp/sum.json"
		cmp -s "$tmp/sum.folded" "$tmp/sum.json" ||
			echo "folded $(cat "$tmp/sum.folded"), json $(cat "$tmp/sum.json")"
		n=$(wc -l <"$tmp/wall.json")
		[ "$(grep -c '"state":"\[o[nf][f ]*CPU' "$tmp/wall.json")" = "$n" ] ||
			echo "lines without a state: $(grep -v '"state"' "$tmp/wall.json" | head -n 1 | cut -c1-200)")"
	"$BPFREC" report -i "$tmp/wall.data" --wall --svg "$tmp/wall.svg" >/dev/null 2>>"$tmp/wall.err"
	result "--wall --svg: on-CPU frames warm, off-CPU frames blue" "$(
		grep -q 'data-n="\[on CPU\]".*fill="rgb(2[0-5][0-9],' "$tmp/wall.svg" ||
			echo "[on CPU] not warm: $(grep -m 1 'data-n="\[on CPU\]"' "$tmp/wall.svg" | cut -c1-300)"
		grep 'data-n="\[off CPU: S\]"' "$tmp/wall.svg" | grep -q 'fill="rgb([0-5]\?[0-9],[0-9]*,2[0-5][0-9])' ||
			echo "[off CPU: S] not blue: $(grep -m 1 'data-n="\[off CPU: S\]"' "$tmp/wall.svg" | cut -c1-300)")"
	one_line "--wall of a file without CPU samples exits 1" 1 \
		"bpfrec report: $tmp/nowake.data: --wall needs CPU samples and off-CPU intervals of the same threads (record -e cpu-clock --off-cpu)" \
		report -i "$tmp/nowake.data" --wall --folded
else
	fail "record -e cpu-clock --off-cpu records" "$(tail -n 1 "$tmp/wall.err")"
fi

echo "wall: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
