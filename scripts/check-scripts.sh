#!/bin/bash
# Tests of the judging scripts themselves, on recorded guest consoles
# (scripts/testdata): a judge that passes a splat would hide a kernel bug.
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
expect 1 "--tcg-poke-race: an int3 in kernel text is not" \
	"$console" --tcg-poke-race "$data/int3-kernel-text.log"
expect 1 "--tcg-poke-race: a WARNING before the int3 is not" \
	"$console" --tcg-poke-race "$data/warning-then-race.log"

first=$("$console" "$data/tcg-poke-race.log" 2>&1 | head -n 1)
want="check-console: kernel splat in $data/tcg-poke-race.log:"
expect 0 "check-console: names the log on its first line" [ "$first" = "$want" ]

echo "scripts: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
