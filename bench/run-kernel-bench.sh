#!/bin/bash
# Kernel benchmark of the series: BPF map create+free throughput (bench/map_churn.c) in the
# guest, on the patched and the unpatched kernel of the same base and config, in one run.
# Boots alternate patched/unpatched so that drift of the host hits both alike; each boot
# prints the median rate per mode, and the ratios use the mean of those medians:
#   none:  patched, no listener          / unpatched, no listener   (goal >= 0.99)
#   prog:  patched, bpf_event listener   / unpatched, same listener (map records not asked for)
#   obj:   patched, bpf_obj_event        / unpatched, no listener   (goal >= 0.95; the records
#          are written, which the unpatched kernel cannot do at all)
#   usage: bench/run-kernel-bench.sh [--debug] [--boots N] [-- map_churn args]
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

kargs=()
boots=2
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
[ ${#churn_args[@]} -gt 0 ] || churn_args=(-n 20000 -r 9)

work=$CACHE/bench
mkdir -p "$work"
gcc -O2 -Wall -Wextra -Werror -static -I"$TOP/include/uapi" \
	-o "$work/map_churn" "$TOP/bench/map_churn.c"

declare -A sum cnt
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
		while read -r mode rate; do
			[ "$rate" = n/a ] && continue
			key=$variant-$mode
			sum[$key]=$(echo "${sum[$key]:-0} + $rate" | bc -l)
			cnt[$key]=$((${cnt[$key]:-0} + 1))
		done < <(sed -nE 's/^map_churn mode=([a-z]+) ops_per_sec=([0-9]+|n\/a) .*/\1 \2/p' "$out")
		grep '^map_churn ' "$out" | sed "s/^/  $variant: /"
	done
done

mean() {
	[ -n "${cnt[$1]:-}" ] || die "no result for $1 (see $work/*.out)"
	echo "${sum[$1]} / ${cnt[$1]}" | bc -l
}
ratio() {
	printf '%.4f' "$(echo "$(mean "$1") / $(mean "$2")" | bc -l)"
}

pn=$(mean patched-none); un=$(mean unpatched-none)
pp=$(mean patched-prog); up=$(mean unpatched-prog)
po=$(mean patched-obj)
echo
echo "map create+free per second (mean of $boots boot medians; map_churn ${churn_args[*]}):"
printf '  %-34s %10.0f   unpatched %10.0f   ratio %s\n' \
	"no listener" "$pn" "$un" "$(ratio patched-none unpatched-none)" \
	"bpf_event listener" "$pp" "$up" "$(ratio patched-prog unpatched-prog)" \
	"bpf_obj_event listener (vs none)" "$po" "$un" "$(ratio patched-obj unpatched-none)"
