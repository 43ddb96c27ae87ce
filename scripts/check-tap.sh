#!/bin/bash
# Judge a run_kselftest.sh TAP log taken from the guest console.
#   usage: scripts/check-tap.sh LOG KSELFTEST_LIST KERNEL [--no-skip TARGET]...
# KERNEL is BASE-VARIANT (6.12-patched, 6.1-unpatched): the lines of
# selftests/expected-failures and selftests/not-run whose pattern matches it apply.
# Fails on: a 'not ok' not listed in selftests/expected-failures, an expected failure
# that passed, fewer results than tests in kselftest-list.txt, and (--no-skip) any SKIP
# inside TARGET, which on the patched kernel would hide a missing feature.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

log=$1
list=$2
kernel=$3
shift 3
noskip=" "
while [ $# -gt 0 ]; do
	[ "$1" = --no-skip ] && noskip+="$2 "
	shift 2
done

xfail=$(kernel_tests "$TOP/selftests/expected-failures" "$kernel" | cut -d' ' -f1)
expected=$(grep -c . "$list")
# Tests vm-test.sh kept out of the run on this kernel: named, with the reason.
kernel_tests "$TOP/selftests/not-run" "$kernel" | while read -r test reason; do
	echo "check-tap: SKIP $test, not run on $kernel (selftests/not-run): $reason"
done

awk -v xfail="$xfail" -v noskip="$noskip" -v expected="$expected" '
BEGIN {
	n = split(xfail, x, "\n")
	for (i = 1; i <= n; i++)
		isx[x[i]] = 1
}
/^# selftests: [^:]+: / {
	target = $3; sub(/:$/, "", target)
	next
}
target != "" && /SKIP/ && index(noskip, " " target " ") {
	printf "check-tap: SKIP in %s on a kernel that must support it: %s\n", target, $0
	bad++
}
/^(not )?ok [0-9]+ selftests: / {
	line = $0
	sub(/^(not )?ok [0-9]+ selftests: /, "", line)
	split(line, p, ": ")
	name = p[1] ":" p[2]; sub(/ #.*$/, "", name)
	results++
	if ($1 == "not") {
		if (name in isx) { xfailed++; printf "check-tap: expected failure: %s\n", name }
		else { printf "check-tap: FAILED: %s\n", name; bad++ }
	} else if (name in isx) {
		printf "check-tap: unexpected pass: %s (remove it from selftests/expected-failures)\n", name
		bad++
	} else {
		passed++
	}
	target = ""
}
END {
	if (results < expected) {
		printf "check-tap: only %d of %d tests reported a result\n", results, expected
		bad++
	}
	printf "kselftest: %d expected failures (selftests/expected-failures)\n", xfailed
	printf "kselftest: %d passed, %d failed\n", passed, bad
	exit bad > 0
}' "$log"
