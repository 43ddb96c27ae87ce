# SPDX-License-Identifier: GPL-2.0
#
# The host tests' verdicts, sourced by each tests/host/*.sh: one line per
# check ("ok", "FAIL", "skip" and the check's name), counted for the
# script's last line "NAME: N passed, N failed, N skipped".

passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1${2:+: $2}"; }
skip() { skipped=$((skipped + 1)); echo "skip  $1${2:+: $2}"; }
# result NAME DETAIL: pass when DETAIL is empty, else fail with it
result() { if [ -z "$2" ]; then pass "$1"; else fail "$1" "$2"; fi; }
