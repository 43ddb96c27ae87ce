#!/bin/bash
# Fail when a guest console log shows a kernel splat, even if every test passed.
#   usage: scripts/check-console.sh CONSOLE_LOG
#          scripts/check-console.sh --tcg-poke-race CONSOLE_LOG
# --tcg-poke-race succeeds only when the log's first splat is the one QEMU's
# multi-threaded TCG causes (see scripts/tcg-poke-race.sh): an int3 trap whose
# code bytes show that the int3 is no longer there, with nothing before it.  The
# kernel pokes a call site (int3, then the rest of the call, then its first byte)
# while the other vCPU runs that code: a BPF program's fentry site when a
# trampoline attaches, or kernel text such as __schedule's tracepoint call when a
# program attaches to sched_switch.  A stale translation of the int3 runs after
# the poke has finished and every CPU was synced, which real CPUs never do.  The
# trap's RIP is the byte after the int3, so the byte before the "<..>" mark of
# the Code: line is where the int3 was: the race when it holds anything but cc.
# An int3 still in memory (a breakpoint, a BUG) is never taken for the race.
# At a BPF program's fentry site (+0x1, or +0x5 after its ENDBR) the kernel
# often cannot show the code bytes; an int3 there is the race by its place.
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
	# At a BPF program's fentry site the kernel may not show the code bytes
	# ("Unable to access opcode bytes"): there the site itself says it.
	sed -n "$first,\$p" "$log" | grep -m 1 'RIP: 0010:' |
		grep -qE 'RIP: 0010:bpf_prog_[0-9a-f]+_[A-Za-z0-9_]+\+0x[15]/' && exit 0
	site=$(sed -n "$first,\$p" "$log" | grep -m 1 ' Code: ' |
		sed -n 's/.* \([0-9a-f][0-9a-f]\) <[0-9a-f][0-9a-f]>.*/\1/p')
	[ -n "$site" ] && [ "$site" != cc ]
	exit
fi

if grep -nE "$pattern" "$1" >/dev/null; then
	echo "check-console: kernel splat in $1:" >&2
	grep -nE -A 12 "$pattern" "$1" | head -n 40 >&2
	exit 1
fi
