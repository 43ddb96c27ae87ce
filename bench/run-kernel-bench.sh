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
# TCG on a shared 2-core host is noisy: the per-boot lines (with their interquartile range)
# are printed so that a reader can judge the spread.
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
[ ${#churn_args[@]} -gt 0 ] || churn_args=(-n 4000 -r 31)

work=$CACHE/bench
mkdir -p "$work"
rm -f "$work"/*.out
gcc -O2 -Wall -Wextra -Werror -static -I"$TOP/include/uapi" \
	-o "$work/map_churn" "$TOP/bench/map_churn.c"

# Build both kernels first, so that a build does not run during a measurement.
"$TOP/scripts/build-kernel.sh" "${kargs[@]}" >/dev/null
"$TOP/scripts/build-kernel.sh" "${kargs[@]}" --unpatched >/dev/null

for ((b = 1; b <= boots; b++)); do
	for variant in patched unpatched; do
		v=()
		[ $variant = unpatched ] && v=(--unpatched)
		out=$work/$variant-$b.out
		stage "boot $b/$boots, $variant kernel: map_churn ${churn_args[*]}"
		"$TOP/scripts/vm.sh" "${kargs[@]}" "${v[@]}" --timeout 1200 \
			--log "$work/console-$variant-$b.log" \
			--add "$work/map_churn:/opt/bpfrec/bin" -- \
			map_churn "${churn_args[@]}" >"$out" 2>&1 ||
			{ tail -n 30 "$out" >&2; die "the $variant guest failed (log: $out)"; }
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
echo "map create+free per second, patched vs unpatched (median of $boots boots; map_churn ${churn_args[*]}):"
row "no listener" "$pn" "no listener" "$un"
row "bpf_event listener" "$pp" "bpf_event listener" "$up"
row "bpf_obj_event listener" "$po" "bpf_event listener" "$up"
row "bpf_obj_event listener" "$po" "no listener" "$un"
