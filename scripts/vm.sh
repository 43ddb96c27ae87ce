#!/bin/bash
# Boot the guest kernel under QEMU and run a command in it; exit with the command's status.
#   usage: scripts/vm.sh [--base NAME] [--debug] [--unpatched] [--timeout SEC] [--stall SEC] [--log FILE]
#                        [--quiet [--output FILE]] [--no-retry] [--icount] [--add SRC:GUEST_DIR]...
#                        [--shell | -- CMD [ARGS]]
# The console is saved (default $CACHE/logs/console-<kernel>.<pid>.log) and shown, unless
# --quiet: then only the command's own output (what the guest's run.sh prints) is shown,
# or written to --output FILE.
# The run fails when the guest does not report an exit status in time, or when the
# console stays silent for --stall seconds (default 900: a hung guest; a slow one, on a
# busy machine, still prints its tests' lines), or when the
# console shows a kernel splat (WARNING, BUG, KASAN, lockdep, RCU, Oops, panic),
# whatever the command returned.  One splat alone boots the guest again, once, unless
# --no-retry: QEMU TCG's code-patching race (scripts/check-console.sh --tcg-poke-race).
# TCG is the default: a KVM guest hung at boot on these machines. BPFREC_KVM=1 asks for KVM.
# --icount runs QEMU with -icount shift=0: the guest's clock advances one ns per instruction
# executed, so a benchmark's ns are instruction counts, the same from run to run and from a
# quiet host to a busy one (the vCPUs then take turns on one host thread).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kargs=()
variant=patched
flavour=default
timeout=600
stall=900
log=
shell=0
quiet=0
retry=1
icount=0
output=
adds=()
usage="usage: $0 [--base NAME] [--debug] [--unpatched] [--timeout SEC] [--stall SEC] [--log FILE] [--quiet [--output FILE]] [--no-retry] [--icount] [--add SRC:DIR]... [--shell | -- CMD]"
while [ $# -gt 0 ]; do
	case "$1" in
	--base) select_base "${2:-}"; shift ;;
	--debug) kargs+=(--debug); flavour=debug ;;
	--unpatched) kargs+=(--unpatched); variant=unpatched ;;
	--timeout) timeout=$2; shift ;;
	--stall) stall=$2; shift ;;
	--log) log=$2; shift ;;
	--quiet) quiet=1 ;;
	--no-retry) retry=0 ;;
	--icount) icount=1 ;;
	--output) output=$2; shift ;;
	--add) adds+=("$2"); shift ;;
	--shell) shell=1 ;;
	--) shift; break ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
	shift
done
[ $shell = 1 ] || [ $# -gt 0 ] || { echo "vm.sh: no command given (use -- CMD or --shell)" >&2; exit 2; }
kname=$BASE-$variant-$flavour
prune_logs
log=${log:-$CACHE/logs/console-$kname.$$.log}

kbuild=$("$TOP/scripts/build-kernel.sh" "${kargs[@]}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $shell = 1 ]; then
	echo 'exec setsid cttyhack sh -l' >"$work/run.sh"
else
	printf '%q ' "$@" >"$work/run.sh"
	echo >>"$work/run.sh"
fi
"$TOP/scripts/mkinitramfs.sh" "$work/initramfs.cpio.gz" "$work/run.sh" "${adds[@]}"

accel=(-accel tcg -cpu max)
[ $icount = 1 ] && accel+=(-icount shift=0)
[ "${BPFREC_KVM:-0}" = 1 ] && accel=(-accel kvm -cpu host)
# no_timer_check: the boot's test of the timer IRQ counts ticks within a
# delay loop, which a TCG guest on a loaded host can miss: the kernel then
# panics with "IO-APIC + timer doesn't work!" (seen beside three kernel
# builds).  The emulated timer is known to work.
# no5lvl: with 5-level paging, a KASAN kernel can report a false
# "wild-memory-access" at boot.  identify_cpu() clears the boot CPU's feature
# bits, LA57 with them, before it reads them again; an interrupt in that window
# makes KASAN compute its shadow range for 4-level paging and judge a per-CPU
# address wild.  It was seen once in a 6.12 debug guest (rcu_is_watching, from
# a timer interrupt in cpu_detect), and is posted upstream as "kasan: Fix
# false-positive wild-memory-access on x86 under 5-level paging" (June 2026).
# No test needs 5-level paging, and 4-level paging closes that window.
# The name tells this guest's QEMU from any other's, for the stall watchdog.
tag=bpfrec-vm-$$-$RANDOM
qemu=(qemu-system-x86_64 "${accel[@]}" -name "$tag" -smp 2 -m 2G -nographic -no-reboot
	-kernel "$kbuild/arch/x86/boot/bzImage" -initrd "$work/initramfs.cpio.gz"
	-append "console=ttyS0 panic=-1 oops=panic no_timer_check no5lvl")

if [ $shell = 1 ]; then
	stage "booting $kname interactively; 'reboot -f' ends the guest" >&2
	exec "${qemu[@]}"
fi

# show: the command's output, to --output's file (a boot again starts it over) or stdout
show() {
	if [ -n "$output" ]; then
		cat >"$output"
	else
		cat
	fi
}

# boot: run the guest once, its console in $log; the command's status in $rc
# (empty when the guest gave none), QEMU's in $qrc
boot() {
	stage "booting $kname (TCG unless BPFREC_KVM=1; limit ${timeout}s, or ${stall}s without output; console: $log)" >&2
	rm -f "$work/stalled"
	: >"$log"
	watch_stall "$log" "$stall" "$tag" "$work/stalled"
	watcher=$!
	set +e
	# tr writes each line as it comes (stdbuf): the log's growth is what the watchdog sees
	if [ $quiet = 1 ]; then
		# The guest's init marks where the command's output starts and ends;
		# kernel messages (printk time stamps) between them stay in the log only.
		timeout -k 10 "$timeout" "${qemu[@]}" </dev/null 2>&1 | stdbuf -oL tr -d '\r' | tee "$log" |
			sed -n '/^bpfrec-guest: .*running \/run.sh$/,/^BPFREC-EXIT-STATUS=/{//!p}' |
			grep -v '^\[ *[0-9]*\.[0-9]*\] ' | show
	else
		timeout -k 10 "$timeout" "${qemu[@]}" </dev/null 2>&1 | stdbuf -oL tr -d '\r' | tee "$log"
	fi
	qrc=${PIPESTATUS[0]}
	kill $watcher 2>/dev/null
	wait $watcher 2>/dev/null
	set -e
	rc=$(sed -n 's/^BPFREC-EXIT-STATUS=\([0-9]*\)$/\1/p' "$log" | tail -n 1)
}

boot
# QEMU 7.2's multi-threaded TCG can run a stale int3 at a call site the kernel has
# finished poking: a BPF program's fentry site, or kernel text such as a tracepoint's
# call in __schedule (scripts/tcg-poke-race.sh reproduces the first; real CPUs and KVM
# do not): that one signature, and nothing else, gets one more boot.
if [ $retry = 1 ] && "$TOP/scripts/check-console.sh" --tcg-poke-race "$log"; then
	mv "$log" "${log%.log}.tcg-race.log"
	stage "the guest hit QEMU TCG's code-patching race (a stale int3 at a call site the kernel had finished poking; console: ${log%.log}.tcg-race.log); booting it again, once" >&2
	boot
fi
if [ -z "$rc" ]; then
	[ "$qrc" = 124 ] && echo "vm.sh: guest did not finish within ${timeout}s" >&2
	[ -f "$work/stalled" ] &&
		echo "vm.sh: the guest printed nothing for $(cat "$work/stalled") s; stopped it (hung?)" >&2
	echo "---- last console lines ----" >&2
	tail -n 30 "$log" >&2
	die "the guest ended without an exit status (QEMU status $qrc)"
fi
"$TOP/scripts/check-console.sh" "$log"
stage "guest command exited with status $rc" >&2
exit "$rc"
