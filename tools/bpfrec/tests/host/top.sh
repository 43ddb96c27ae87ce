#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of `bpfrec top`: run as root on the host kernel.
#
#   BPFREC=path/to/bpfrec STAT_PROG=path/to/stat-prog tests/host/top.sh
#
# top runs in tmux, as a person would use it: keys are sent with
# send-keys and the screen is read with capture-pane.  The workload is
# stat-prog (tests/stat/) copied as h25top, so that its loader's comm is
# this test's alone: it loads a program, runs it 1000 times, holds it
# 50 ms and frees it, all within a refresh (0.2 s) or two.  Every wait is for what the screen shows, with a
# limit.  Then the plain lines of top when stdout is not a terminal.
# Needs tmux (skipped when missing).
# Last line: "top: N passed, N failed, N skipped"; exit 1 if anything failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
STAT_PROG=${STAT_PROG:-$here/../../.output/stat-prog}

. "$here/lib.sh"

host_setup top "$BPFREC" "$STAT_PROG"

sock=bpfrec-top-$$
bg=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null
	[ -n "$bg" ] && kill "$bg" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

see="(see bpfrec top --help)"
one_line "-d 0 exits 2" 2 "bpfrec top: -d wants seconds from 0.1 to 3600, not '0' $see" top -d 0
one_line "-n x exits 2" 2 "bpfrec top: -n wants a count of refreshes, not 'x' $see" top -n x
one_line "bad --sort exits 2" 2 \
	"bpfrec top: unknown sort key 'x': time, runs, avg, id or name $see" top --sort x

cp "$STAT_PROG" "$tmp/h25top"

# lifecycle_line KIND ID: whether stdin has the lifecycle line of the workload's program
# ID, "TIME KIND id ID xdp stat_target_with_a_long_name [loaded] by h25top[PID]", compared
# field by field: the id column is padded to a width, so the spaces after it depend on
# how many digits the id has (a new machine's ids are shorter).
lifecycle_line() {
	awk -v kind="$1" -v id="$2" '
		$2 == kind && $3 == "id" && $4 == id && $5 == "xdp" &&
		$6 == "stat_target_with_a_long_name" &&
		((kind == "load" && $7 == "by" && $8 ~ /^h25top\[/) ||
		 (kind == "free" && $7 == "loaded" && $8 == "by" && $9 ~ /^h25top\[/)) { found = 1 }
		END { exit !found }'
}


# --- plain lines when stdout is not a terminal ------------------------------
"$BPFREC" top -d 0.2 --filter h25top >"$tmp/plain" 2>"$tmp/plain.err" </dev/null &
bg=$!
wait_until 30 grep -qs "^bpfrec top - " "$tmp/plain"
"$tmp/h25top" -r 1000 -k 100 >"$tmp/wl1.out"
id1=$(awk '$1 == "id" { print $2 }' "$tmp/wl1.out")
row1() { awk -v id="$id1" '$1 == id && $3 == "stat_target_with_a_long_name" && $4 == 1000 && $NF == "freed"' "$tmp/plain" | grep -q .; }
wait_until 30 row1
kill -INT $bg
wait $bg
rc=$?
bg=
result "not a terminal: plain lines, the program's row with its 1000 runs, freed" \
	"$(row1 || tail -5 "$tmp/plain")"
result "not a terminal: its load and free as event lines, by h25top" \
	"$(sed -n 's/^event //p' "$tmp/plain" | lifecycle_line load "$id1" &&
		sed -n 's/^event //p' "$tmp/plain" | lifecycle_line free "$id1" ||
		grep '^event' "$tmp/plain" | tail -5)"
result "not a terminal: exit 0 at Ctrl-C" "$([ $rc -eq 0 ] || echo "exit $rc: $(cat "$tmp/plain.err")")"

# --- in tmux ---------------------------------------------------------------
if ! command -v tmux >/dev/null; then
	skip "top in tmux" "tmux missing (scripts/deps.sh)"
	echo "top: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit
fi

t() { tmux -L "$sock" -f /dev/null "$@"; }
screen() { t capture-pane -p -t top; }
shows() { screen | grep -q -- "$1"; }

t new-session -d -s top -x 180 -y 50 \
	"'$BPFREC' top -d 0.2 2>'$tmp/tmux.err'; echo \$? >'$tmp/tmux.rc'; sleep 30"
wait_until 30 shows '^bpfrec top - '
result "tmux: the header" "$(shows '^bpfrec top - ' || screen | head -3)"

# the filter as typed: '/', the text, Enter
t send-keys -t top / h 2 5 t o p Enter
wait_until 10 shows 'filter h25top'
result "tmux: / sets a filter, shown in the header" "$(shows 'filter h25top' || screen | head -2)"

"$tmp/h25top" -r 1000 -k 100 -s 0.05 >"$tmp/wl2.out"
id2=$(awk '$1 == "id" { print $2 }' "$tmp/wl2.out")
row2() { screen | awk -v id="$id2" '$1 == id && $3 == "stat_target_with_a_long_name" && $4 == 1000 && $NF == "freed"' | grep -q .; }
wait_until 30 row2
result "tmux: the program that lived 50 ms: its row with its 1000 runs, freed" "$(row2 || screen)"
load2() { screen | lifecycle_line load "$id2"; }
free2() { screen | lifecycle_line free "$id2"; }
wait_until 10 free2
result "tmux: the lifecycle pane shows its load and free with the loader's comm" \
	"$(load2 && free2 || screen | tail -20)"

t send-keys -t top s
wait_until 10 shows 'sort runs'
result "tmux: s sorts by the next key (runs)" "$(shows 'sort runs' || screen | head -1)"
t send-keys -t top p
wait_until 10 shows '\[paused\]'
result "tmux: p pauses" "$(shows '\[paused\]' || screen | head -1)"
t send-keys -t top p
wait_until 10 eval '! shows "\[paused\]"'
t send-keys -t top c
wait_until 10 eval '! shows "filter h25top"'
result "tmux: c clears the filter" "$(shows 'filter h25top' && screen | head -1)"
t send-keys -t top q
wait_until 20 test -s "$tmp/tmux.rc"
result "tmux: q quits, exit 0" \
	"$([ "$(cat "$tmp/tmux.rc" 2>/dev/null)" = 0 ] || echo "rc '$(cat "$tmp/tmux.rc" 2>/dev/null)': $(cat "$tmp/tmux.err")")"

echo "top: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
