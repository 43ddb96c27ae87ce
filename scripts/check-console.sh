#!/bin/bash
# Fail when a guest console log shows a kernel splat, even if every test passed.
#   usage: scripts/check-console.sh CONSOLE_LOG
#          scripts/check-console.sh --tcg-poke-race CONSOLE_LOG
# --tcg-poke-race succeeds only when the log's first splat is the one QEMU's
# multi-threaded TCG causes (see scripts/tcg-poke-race.sh): an int3 trap at a BPF
# program's fentry site, right after its ENDBR (+0x5) or at its start (+0x1), with
# nothing before it.  The kernel pokes that site (int3, then the call) while the
# program runs on the other CPU; a stale translation of the int3 runs after the
# poke has finished, which real CPUs never do.
set -euo pipefail

pattern='WARNING:|BUG:|KASAN:|UBSAN:|Oops|Kernel panic|general protection fault|'
pattern+='possible recursive locking|possible circular locking|inconsistent lock state|'
pattern+='suspicious RCU usage|DEBUG_LOCKS_WARN_ON|INFO: task .* blocked|'
pattern+='INFO: rcu_.* stall|Call Trace:'

if [ "${1:-}" = --tcg-poke-race ]; then
	log=$2
	first=$(grep -nE "$pattern" "$log" | head -n 1 | cut -d: -f1)
	[ -n "$first" ] || exit 1
	sed -n "${first}p" "$log" | grep -qE '(Oops: )?int3: 0000 \[#1\]' || exit 1
	sed -n "$first,\$p" "$log" | grep -m 1 'RIP: 0010:' |
		grep -qE 'RIP: 0010:bpf_prog_[0-9a-f]+_[A-Za-z0-9_]+\+0x[15]/'
	exit
fi

if grep -nE "$pattern" "$1" >/dev/null; then
	echo "check-console: kernel splat in $1:" >&2
	grep -nE -A 12 "$pattern" "$1" | head -n 40 >&2
	exit 1
fi
