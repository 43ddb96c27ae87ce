#!/bin/bash
# Fail when a guest console log shows a kernel splat, even if every test passed.
#   usage: scripts/check-console.sh CONSOLE_LOG
set -euo pipefail

pattern='WARNING:|BUG:|KASAN:|UBSAN:|Oops|Kernel panic|general protection fault|'
pattern+='possible recursive locking|possible circular locking|inconsistent lock state|'
pattern+='suspicious RCU usage|DEBUG_LOCKS_WARN_ON|INFO: task .* blocked|'
pattern+='INFO: rcu_.* stall|Call Trace:'
if grep -nE "$pattern" "$1" >/dev/null; then
	echo "check-console: kernel splat in $1:" >&2
	grep -nE -A 12 "$pattern" "$1" | head -n 40 >&2
	exit 1
fi
