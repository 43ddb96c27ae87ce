#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the user stacks that keep the caller of libc
# (`record --call-graph dwarf`): run as root on the host kernel.
#
#   BPFREC=path/to/bpfrec PROGS=path/to/.output tests/host/unwind.sh
#
# libc-sleeper (tests/unwind/) sleeps 10 x 100 ms in wait_for_tick()
# through libc's nanosleep(), built as Debian builds (-O2, no frame
# pointers) against Debian's glibc (none either).  With frame pointers
# alone the function is lost; with --call-graph dwarf the report names it
# for at least 99 % of the off-CPU time.  Shares are computed from the
# recording, never from a clock.
# Last line: "unwind: N passed, N failed, N skipped"; exit 1 if anything failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
PROGS=${PROGS:-$here/../../.output}
SLEEPER=$PROGS/libc-sleeper

. "$here/lib.sh"

host_setup unwind "$BPFREC" "$SLEEPER"

trap 'rm -rf "$tmp"' EXIT

see="(see bpfrec record --help)"
for t in dwarf, dwarf,0 dwarf,x dwarf,65529 dwarf8 ''; do
	one_line "--call-graph '$t' exits 2" 2 \
		"bpfrec record: --call-graph wants fp or dwarf[,SIZE] (SIZE 1 to 65528 bytes), not '$t' $see" \
		record -o "$tmp/usage.data" -e cpu-clock --call-graph "$t" -- true
done
one_line "--off-cpu --call-graph dwarf,20000 exits 2" 2 \
	"bpfrec record: --off-cpu copies at most 16384 bytes of user stack, not 20000 $see" \
	record -o "$tmp/usage.data" --off-cpu --call-graph dwarf,20000 -- true

# share FOLDED PATTERN: of the time in libc's nanosleep (lines through
# clock_nanosleep), the part in lines matching PATTERN (0 to 1), and that
# time.  The sleeps only: the exec of a loaded machine may wait too.
share() {
	awk -v pat="$2" '/;clock_nanosleep/ { n = $NF; all += n; if ($0 ~ pat) in_ += n }
		END { if (all) printf "%.4f %d\n", in_ / all, all; else print "0 0" }' "$1"
}

# 1. off-CPU: the sleeps are named wait_for_tick (main;wait_for_tick;__nanosleep;...)
#    for >= 99 % of the time in nanosleep
named=";main;wait_for_tick;[^;]*nanosleep"
if "$BPFREC" record --off-cpu --call-graph dwarf -o "$tmp/dwarf.data" -- "$SLEEPER" \
	>"$tmp/dwarf.out" 2>"$tmp/dwarf.err"; then
	"$BPFREC" report -i "$tmp/dwarf.data" --off-cpu --folded >"$tmp/dwarf.folded" 2>>"$tmp/dwarf.err"
	read -r part total < <(share "$tmp/dwarf.folded" "^libc-sleeper;.*$named")
	result "--off-cpu --call-graph dwarf: wait_for_tick named for $part of $total ns off CPU (>= 0.99)" "$(
		awk -v p="$part" 'BEGIN { exit !(p >= 0.99) }' ||
			echo "$(sort -t' ' -k2 -n "$tmp/dwarf.folded" | tail -n 2 | cut -c1-300)"
		# each interval starts when the task leaves the CPU, after it armed its
		# timer: a few us on a quiet machine, more when the hypervisor takes the
		# CPU away between the two. A lost sleep takes 100 ms away.
		[ "$total" -ge 980000000 ] || echo "$total ns off CPU, want the 1 s slept (0.98 s at least)")"
	# the ten sleeps at least (a loaded machine may keep the exec waiting too)
	copies=$(sed -n 's/.*off-CPU: \([0-9]*\) of the samples with a copy of the user stack.*/\1/p' \
		"$tmp/dwarf.err")
	[ "${copies:-0}" -ge 10 ] ||
		fail "the recording says how many samples have a stack copy" "$(grep off-CPU "$tmp/dwarf.err")"
else
	fail "--off-cpu --call-graph dwarf records" "$(tail -n 1 "$tmp/dwarf.err")"
fi

# 2. the same with frame pointers alone: the function is lost (what dwarf fixes)
if "$BPFREC" record --off-cpu -o "$tmp/fp.data" -- "$SLEEPER" >/dev/null 2>"$tmp/fp.err"; then
	"$BPFREC" report -i "$tmp/fp.data" --off-cpu --folded >"$tmp/fp.folded" 2>>"$tmp/fp.err"
	read -r part total < <(share "$tmp/fp.folded" "wait_for_tick")
	result "--off-cpu with frame pointers alone: wait_for_tick lost ($part of the time named)" "$(
		[ "$total" -gt 0 ] || echo "no sleep in nanosleep recorded"
		awk -v p="$part" 'BEGIN { exit !(p < 0.01) }' ||
			echo "named by frame pointers: the test no longer shows what dwarf fixes")"
else
	fail "--off-cpu records" "$(tail -n 1 "$tmp/fp.err")"
fi

# 3. short intervals, summed at the stop, keep the first copy of their stack
if "$BPFREC" record --off-cpu --off-cpu-thresh 1s --call-graph dwarf -o "$tmp/sums.data" -- \
	"$SLEEPER" -n 20 -m 10 >/dev/null 2>"$tmp/sums.err"; then
	"$BPFREC" report -i "$tmp/sums.data" --off-cpu --folded >"$tmp/sums.folded" 2>>"$tmp/sums.err"
	read -r part total < <(share "$tmp/sums.folded" "^libc-sleeper;.*$named")
	result "summed intervals: wait_for_tick named for $part of $total ns (>= 0.99)" "$(
		awk -v p="$part" 'BEGIN { exit !(p >= 0.99) }' ||
			sort -t' ' -k2 -n "$tmp/sums.folded" | tail -n 2 | cut -c1-300
		grep -q "(0 intervals >= 1000 ms as they ended" "$tmp/sums.err" ||
			grep off-CPU "$tmp/sums.err")"
else
	fail "--off-cpu --off-cpu-thresh 1s --call-graph dwarf records" "$(tail -n 1 "$tmp/sums.err")"
fi

echo "unwind: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
