#!/bin/bash
# Boot the guest kernel under QEMU and run a command in it; exit with the command's status.
#   usage: scripts/vm.sh [--debug] [--unpatched] [--timeout SEC] [--log FILE]
#                        [--add SRC:GUEST_DIR]... [--shell | -- CMD [ARGS]]
# The console is shown and saved (default $CACHE/logs/console-<variant>.<pid>.log).
# The run fails when the guest does not report an exit status in time, or when the
# console shows a kernel splat (WARNING, BUG, KASAN, lockdep, RCU, Oops, panic),
# whatever the command returned.
# TCG is the default: a KVM guest hung at boot on these machines. BPFREC_KVM=1 asks for KVM.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kargs=()
variant=patched-default
timeout=600
log=
shell=0
adds=()
while [ $# -gt 0 ]; do
	case "$1" in
	--debug) kargs+=(--debug); variant=${variant%-*}-debug ;;
	--unpatched) kargs+=(--unpatched); variant=unpatched-${variant#*-} ;;
	--timeout) timeout=$2; shift ;;
	--log) log=$2; shift ;;
	--add) adds+=("$2"); shift ;;
	--shell) shell=1 ;;
	--) shift; break ;;
	*) echo "usage: $0 [--debug] [--unpatched] [--timeout SEC] [--log FILE] [--add SRC:DIR]... [--shell | -- CMD]" >&2
	   exit 2 ;;
	esac
	shift
done
[ $shell = 1 ] || [ $# -gt 0 ] || { echo "vm.sh: no command given (use -- CMD or --shell)" >&2; exit 2; }
mkdir -p "$CACHE/logs"
# Keep the 40 newest logs: every run writes its own.
find "$CACHE/logs" -name '*.log' -printf '%T@ %p\n' | sort -rn | tail -n +41 | cut -d' ' -f2- |
	xargs -r rm -f
log=${log:-$CACHE/logs/console-$variant.$$.log}

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
[ "${BPFREC_KVM:-0}" = 1 ] && accel=(-accel kvm -cpu host)
qemu=(qemu-system-x86_64 "${accel[@]}" -smp 2 -m 2G -nographic -no-reboot
	-kernel "$kbuild/arch/x86/boot/bzImage" -initrd "$work/initramfs.cpio.gz"
	-append "console=ttyS0 panic=-1 oops=panic")

if [ $shell = 1 ]; then
	stage "booting $variant interactively; 'reboot -f' ends the guest" >&2
	exec "${qemu[@]}"
fi

stage "booting $variant (TCG unless BPFREC_KVM=1; limit ${timeout}s; console: $log)" >&2
set +e
timeout -k 10 "$timeout" "${qemu[@]}" </dev/null 2>&1 | tr -d '\r' | tee "$log"
qrc=${PIPESTATUS[0]}
set -e

rc=$(sed -n 's/^BPFREC-EXIT-STATUS=\([0-9]*\)$/\1/p' "$log" | tail -n 1)
if [ -z "$rc" ]; then
	[ "$qrc" = 124 ] && echo "vm.sh: guest did not finish within ${timeout}s" >&2
	echo "---- last console lines ----" >&2
	tail -n 30 "$log" >&2
	die "the guest ended without an exit status (QEMU status $qrc)"
fi
"$TOP/scripts/check-console.sh" "$log"
stage "guest command exited with status $rc" >&2
exit "$rc"
