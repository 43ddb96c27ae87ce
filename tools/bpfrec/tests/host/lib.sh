# SPDX-License-Identifier: GPL-2.0
#
# The host tests' verdicts, sourced by each tests/host/*.sh: one line per
# check ("ok", "FAIL", "skip" and the check's name), counted for the
# script's last line "NAME: N passed, N failed, N skipped"; the start every
# script shares; and the check of bad input, with the script's $BPFREC and
# $tmp.

passed=0 failed=0 skipped=0

# bpfrec where `make host-test` builds it, unless the caller names another
# ($here: the sourcing script's folder)
BPFREC=${BPFREC:-$here/../../bpfrec}

# host_setup NAME FILE...: the start of a script: root, and each FILE built
# (else exit 1 saying which); $tmp, a fresh directory /tmp/bpfrec-NAME.XXXXXX
host_setup() {
	local name=$1 f

	shift
	if [ "$(id -u)" -ne 0 ]; then
		echo "$name host tests need root" >&2
		exit 1
	fi
	for f in "$@"; do
		[ -x "$f" ] || { echo "missing $f: run 'make host-test'" >&2; exit 1; }
	done
	tmp=$(mktemp -d "/tmp/bpfrec-$name.XXXXXX")
}

pass() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1${2:+: $2}"; }
skip() { skipped=$((skipped + 1)); echo "skip  $1${2:+: $2}"; }
# result NAME DETAIL: pass when DETAIL is empty, else fail with it
result() { if [ -z "$2" ]; then pass "$1"; else fail "$1" "$2"; fi; }

# wait_until SECONDS CMD...: until CMD succeeds, tried every 0.1 s; status 1
# after SECONDS.  Tests wait for a condition rather than sleep a time that
# must be long enough: the bound is generous, as a loaded or slow machine
# needs it, and ends only a test that fails anyway.
wait_until() {
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}

# unloaded ID: no BPF program has ID any more
unloaded() { ! bpftool prog show id "$1" >/dev/null 2>&1; }

# one_line NAME STATUS LINE ARGS...: `$BPFREC ARGS...` exits STATUS and says
# exactly LINE on stderr (its output in $tmp/out and $tmp/err)
one_line() {
	local name=$1 want=$2 line=$3 rc
	shift 3
	"$BPFREC" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "$name" "exit $rc, want $want ($(head -c 200 "$tmp/err"))"
	elif [ "$(cat "$tmp/err")" != "$line" ]; then
		fail "$name" "said '$(head -c 300 "$tmp/err")', want '$line'"
	else
		pass "$name"
	fi
}
