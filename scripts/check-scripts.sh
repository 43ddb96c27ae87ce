#!/bin/bash
# Tests of the scripts themselves: the judges, on recorded guest consoles
# (scripts/testdata), since a judge that passes a splat would hide a kernel bug; and
# the helpers of lib.sh whose failure would stall a build rather than fail it.
#   usage: scripts/check-scripts.sh
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
data=$TOP/scripts/testdata/console
pass=0
fail=0

# expect WANT_STATUS DESCRIPTION CMD...: CMD must exit with WANT_STATUS.
expect() {
	local want=$1 what=$2 got
	shift 2
	"$@" >/dev/null 2>&1
	got=$?
	if [ "$got" -eq "$want" ]; then
		pass=$((pass + 1))
		echo "ok    $what"
	else
		fail=$((fail + 1))
		echo "FAIL  $what: exit $got, want $want"
	fi
}

console=$TOP/scripts/check-console.sh
expect 0 "check-console: a clean console passes" "$console" "$data/clean.log"
expect 1 "check-console: the TCG poke race is a splat" "$console" "$data/tcg-poke-race.log"
expect 1 "check-console: an int3 in kernel text is a splat" "$console" "$data/int3-kernel-text.log"
expect 0 "--tcg-poke-race: an int3 at a BPF program's fentry site is the race" \
	"$console" --tcg-poke-race "$data/tcg-poke-race.log"
expect 1 "--tcg-poke-race: a clean console is not" "$console" --tcg-poke-race "$data/clean.log"
expect 0 "--tcg-poke-race: an int3 whose site holds the finished call, in kernel text, is the race" \
	"$console" --tcg-poke-race "$data/int3-kernel-text.log"
expect 0 "--tcg-poke-race: the race at __schedule's tracepoint call (7.2 guest, Nov 27) is the race" \
	"$console" --tcg-poke-race "$data/tcg-poke-race-kernel-text.log"
expect 1 "check-console: the race in kernel text is a splat" \
	"$console" "$data/tcg-poke-race-kernel-text.log"
expect 0 "--tcg-poke-race: the race at a BPF program's fentry site without code bytes (7.2, Nov 27) is the race" \
	"$console" --tcg-poke-race "$data/tcg-poke-race-no-code.log"
expect 1 "--tcg-poke-race: an int3 still in memory is not" \
	"$console" --tcg-poke-race "$data/int3-in-memory.log"
expect 1 "--tcg-poke-race: a WARNING before the int3 is not" \
	"$console" --tcg-poke-race "$data/warning-then-race.log"

first=$("$console" "$data/tcg-poke-race.log" 2>&1 | head -n 1)
want="check-console: kernel splat in $data/tcg-poke-race.log:"
expect 0 "check-console: names the log on its first line" [ "$first" = "$want" ]

# ticker (lib.sh): killed, it holds neither a lock of its caller nor the pipe of a
# `$(...)` around its caller. Its sleep once held both after a kernel build, for 48 s.
tick=$(mktemp -d)
trap 'rm -rf "$tick"' EXIT
cat >"$tick/caller.sh" <<'SH'
. "$1/scripts/lib.sh"
exec 8>"$2/lock"
flock 8
ticker 30 echo tick 2>/dev/null
sleep 1
kill $!
exec 8>&-
flock -n "$2/lock" echo ended
SH
# The outer timeout ends a `$(...)` still waiting on the ticker's sleep: status 124.
ticker_lets_go() {
	BPFREC_CACHE=$tick/cache timeout 10 bash -c \
		'got=$(bash "$1/caller.sh" "$2" "$1") && [ "$got" = ended ]' _ "$tick" "$TOP"
}
expect 0 "ticker: once killed, frees its caller's lock and \$(...) at once" ticker_lets_go

# watch_stall (lib.sh): stops the QEMU of its tag once the console log stops growing,
# and no other QEMU; says how long the log was silent. A log that keeps growing keeps its
# QEMU running. The QEMUs are stand-ins: processes with QEMU's name and a -name tag.
fake_qemu() {
	(exec -a qemu-system-x86_64 bash -c 'sleep 60 & wait' qemu -name "$1" -smp 2) &
}
stall_stops_silent() (
	. "$TOP/scripts/lib.sh"
	: >"$tick/silent.log"
	fake_qemu stall-a
	a=$!
	fake_qemu stall-b
	b=$!
	watch_stall "$tick/silent.log" 2 stall-a "$tick/stalled" 1
	w=$!
	timeout 20 tail --pid=$a -f /dev/null
	gone=$?
	alive=$(kill -0 $b 2>/dev/null && echo yes)
	kill $a $b $w 2>/dev/null
	[ $gone -eq 0 ] && [ "$alive" = yes ] && [ "$(cat "$tick/stalled")" -ge 2 ]
)
expect 0 "watch_stall: a silent log stops its QEMU, no other, and says for how long" stall_stops_silent
stall_keeps_talking() (
	. "$TOP/scripts/lib.sh"
	: >"$tick/talk.log"
	fake_qemu stall-c
	c=$!
	watch_stall "$tick/talk.log" 2 stall-c "$tick/talked" 1
	w=$!
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
		echo "line $i" >>"$tick/talk.log"
		sleep 0.5
	done
	alive=$(kill -0 $c 2>/dev/null && echo yes)
	kill $c $w 2>/dev/null
	[ "$alive" = yes ] && [ ! -e "$tick/talked" ]
)
expect 0 "watch_stall: a log that grows keeps its QEMU running" stall_keeps_talking

# tree_leftovers (lib.sh): make check fails on a file its run left in the work tree, and
# only on that: what was already changed before the run is not counted against it.
leftover_named() (
	local repo=$tick/repo before left
	git init -q "$repo" && git -C "$repo" -c user.name=t -c user.email=t@t commit -q \
		--allow-empty -m init && echo draft >"$repo/draft" || return 1
	. "$TOP/scripts/lib.sh"
	before=$(tree_state "$repo")
	[ -z "$(tree_leftovers "$repo" "$before")" ] || return 1
	echo 0.36 >"$repo/0"
	left=$(tree_leftovers "$repo" "$before")
	[ "$left" = "?? 0" ]
)
expect 0 "tree_leftovers: names a file left by the run, not one there before" leftover_named

# base_guests (lib.sh): the GUESTS column of kernel/bases, which make check turns into
# guest suites; `-` is none, and a line without the column boots a default guest.
mkdir -p "$tick/bases/kernel"
printf '%s\n' '# NAME PACKAGE VERSION SERIES SUITE GUESTS' 'a p 1 s - default,debug' \
	'b p 1 s sid -' 'c p 1 s' >"$tick/bases/kernel/bases"
guests_of() {
	BPFREC_CACHE=$tick/cache bash -c '. "$1/scripts/lib.sh" && TOP=$2 &&
		[ "$(base_guests "$3" | paste -sd, -)" = "$4" ]' _ "$TOP" "$tick/bases" "$1" "$2"
}
expect 0 "base_guests: default and debug" guests_of a default,debug
expect 0 "base_guests: '-' boots no guest" guests_of b ''
expect 0 "base_guests: no column is a default guest" guests_of c default

# check-demo.awk judges make run's output. offcpu-498ms.txt is the output of a demo
# that a rehearsal beside another one failed: its ten 50 ms sleeps were 498.4 ms off
# CPU, because the host delayed the switches after the timers were armed. Up to 5 %
# under 500 ms passes; a lost sleep (50 ms less) and more than the sleeper's clock fail.
demo=$TOP/scripts/testdata/demo/offcpu-498ms.txt
# demo_offcpu NS: the same output with NS ns off CPU in the sleeper's one stack
demo_offcpu() {
	sed "/^sleeper;.*sleep_in_known_place;/s/ [0-9]*\$/ $1/" "$demo" >"$tick/demo.txt" &&
		awk -f "$TOP/scripts/check-demo.awk" "$tick/demo.txt"
}
expect 0 "check-demo: ten 50 ms sleeps recorded as 498.4 ms off CPU pass" \
	awk -f "$TOP/scripts/check-demo.awk" "$demo"
expect 0 "check-demo: 475.0 ms off CPU (95 % of 500) passes" demo_offcpu 475000000
expect 1 "check-demo: a lost sleep (448.4 ms off CPU) fails" demo_offcpu 448436205
expect 1 "check-demo: more off CPU than the sleeper's clock (505.1 ms of 505.0) fails" \
	demo_offcpu 505100000

echo "scripts: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
