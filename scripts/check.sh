#!/bin/bash
# The one test command behind `make check`: every suite in turn, each shown as it runs;
# a failing suite does not stop the others. Ends with one summary line and fails when
# any suite failed.
#   usage: scripts/check.sh
set -uo pipefail
. "$(dirname "$0")/lib.sh"

suites=(
	"series:$TOP/scripts/check-series.sh"
	"unit:make -s -C $TOP/tools/bpfrec unit-test"
	"fuzz:make -s -C $TOP/tools/bpfrec fuzz-test FUZZ_SECONDS=${FUZZ_SECONDS:-30}"
	"host:make -s -C $TOP/tools/bpfrec host-test"
	"guest:$TOP/scripts/vm-test.sh"
	"guest-debug:$TOP/scripts/vm-test.sh --debug"
)

passed=0
failed=()
for s in "${suites[@]}"; do
	name=${s%%:*}
	stage "== $name: ${s#*:}"
	if bash -c "${s#*:}"; then
		passed=$((passed + 1))
	else
		failed+=("$name")
		stage "== $name: FAILED"
	fi
done
[ ${#failed[@]} -eq 0 ] || echo "failed suites: ${failed[*]}"
echo "check: $passed passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
