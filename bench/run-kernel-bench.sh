#!/bin/bash
# Kernel benchmark of the series: BPF map create+free throughput (bench/map_churn.c) in the
# guest, on the patched and the unpatched kernel of the same base and config, in one run.
# Boots alternate patched/unpatched so that drift of the host hits both alike. Each boot
# prints the median rate per mode over many short interleaved rounds; the ratios use the
# median over the boots:
#   none:  patched, no listener          / unpatched, no listener        (goal >= 0.99)
#   prog:  patched, bpf_event listener   / unpatched, bpf_event listener (map records are
#          not asked for: only the listener count is read)
#   obj:   patched, bpf_obj_event        / unpatched, bpf_event listener (goal >= 0.95: the
#          map records are written; both have an event open on every CPU), and, stricter,
#          / unpatched, no listener
# Wall time under TCG on a shared 2-core host is too noisy for a 1 % goal (the interquartile
# range of one boot spans +-30 % when other builds run). The guest therefore runs with one
# CPU and QEMU's -icount: its clock advances with the instructions it executes, so the rates
# measure the guest's work, whatever the host does. Absolute rates are in virtual time
# (shift=0: 1 ns per instruction); the ratios are what matters. The per-boot lines, with
# their interquartile range, are printed so that a reader can judge the spread.
# The boots use scripts/mkinitramfs.sh and scripts/check-console.sh like scripts/vm.sh, but
# their own QEMU command line for -icount and -smp 1.
#   usage: bench/run-kernel-bench.sh [--debug] [--boots N] [-- map_churn args]
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

kargs=()
boots=3
while [ $# -gt 0 ]; do
	case "$1" in
	--debug) kargs+=(--debug) ;;
	--boots) boots=$2; shift ;;
	--) shift; break ;;
	*) echo "usage: $0 [--debug] [--boots N] [-- map_churn args]" >&2; exit 2 ;;
	esac
	shift
done
churn_args=("$@")
[ ${#churn_args[@]} -gt 0 ] || churn_args=(-n 1000 -r 61)

work=$CACHE/bench
rm -f "$work"/*.out
mkdir -p "$work"
gcc -O2 -Wall -Wextra -Werror -static -I"$TOP/include/uapi" \
	-o "$work/map_churn" "$TOP/bench/map_churn.c"

# Build both kernels first, so that a build does not run during a measurement.
"$TOP/scripts/build-kernel.sh" "${kargs[@]}" >/dev/null
"$TOP/scripts/build-kernel.sh" "${kargs[@]}" --unpatched >/dev/null
# One map_churn per mode, each on its own: the unpatched kernel has no obj mode, and
# the after-effects of obj rounds must not fall into the other modes' rounds on the
# patched kernel alone (they made "no listener" look 1.7 % slower there, Nov 27).
: >"$work/run.sh"
for mode in none prog obj; do
	printf '%q ' map_churn -m $mode "${churn_args[@]}" >>"$work/run.sh"
	echo >>"$work/run.sh"
done
"$TOP/scripts/mkinitramfs.sh" "$work/initramfs.cpio.gz" "$work/run.sh" \
	"$work/map_churn:/opt/bpfrec/bin"

for ((b = 1; b <= boots; b++)); do
	for variant in patched unpatched; do
		v=()
		[ $variant = unpatched ] && v=(--unpatched)
		out=$work/$variant-$b.out
		kbuild=$("$TOP/scripts/build-kernel.sh" "${kargs[@]}" "${v[@]}")
		stage "boot $b/$boots, $variant kernel: map_churn -m none, prog, obj ${churn_args[*]}"
		timeout -k 10 1200 qemu-system-x86_64 -accel tcg -icount shift=0 -cpu max \
			-smp 1 -m 1G -nographic -no-reboot \
			-kernel "$kbuild/arch/x86/boot/bzImage" -initrd "$work/initramfs.cpio.gz" \
			-append "console=ttyS0 panic=-1 oops=panic" </dev/null 2>&1 |
			tr -d '\r' >"$out" || true
		grep -qx 'BPFREC-EXIT-STATUS=0' "$out" ||
			{ tail -n 30 "$out" >&2; die "the $variant guest failed (log: $out)"; }
		"$TOP/scripts/check-console.sh" "$out"
		grep '^map_churn ' "$out" | sed "s/^/  $variant: /"
	done
done

# median VARIANT MODE: median over the boots of the per-boot medians.
median() {
	local v
	v=$(cat "$work/$1"-*.out |
		sed -nE "s/^map_churn mode=$2 ops_per_sec=([0-9]+) .*/\\1/p" | sort -n)
	[ -n "$v" ] || die "no result for $1 $2 (see $work/*.out)"
	echo "$v" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

pn=$(median patched none); un=$(median unpatched none)
pp=$(median patched prog); up=$(median unpatched prog)
po=$(median patched obj)
row() {
	printf '  %-30s %9.0f   unpatched %-18s %9.0f   ratio %.4f\n' \
		"$1" "$2" "$3" "$4" "$(echo "$2 / $4" | bc -l)"
}
echo
echo "map create+free per virtual second (-icount), patched vs unpatched (median of $boots boots; map_churn ${churn_args[*]}):"
row "no listener" "$pn" "no listener" "$un"
row "bpf_event listener" "$pp" "bpf_event listener" "$up"
row "bpf_obj_event listener" "$po" "bpf_event listener" "$up"
row "bpf_obj_event listener" "$po" "no listener" "$un"
