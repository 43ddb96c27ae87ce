#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `bpfrec report` against `perf report --stdio` on the same file of about
# a million CPU samples with call chains (perf record -a -e cpu-clock -c
# PERIOD -g while a busy user function and a BPF program kept busy with
# BPF_PROG_TEST_RUN run).  CPU time (user + system), wall time and peak
# RSS (/usr/bin/time), the best of RUNS runs each, output to /dev/null;
# ratios bpfrec/perf of CPU and RSS (wall time follows the machine's
# load).  perf's default --stdio report is its children view with call graphs; the
# "--no-children -g none" row is perf's flat table, closest to ours.
#
#   bench/run-report.sh [SAMPLES [RUNS]]   default 1000000 and 3; root
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bpfrec_dir=$here/../tools/bpfrec
BPFREC=${BPFREC:-$bpfrec_dir/bpfrec}
STAT_PROG=${STAT_PROG:-$bpfrec_dir/.output/stat-prog}
PERF=${PERF:-/usr/bin/perf}
want=${1:-1000000}
runs=${2:-3}
period=12500	# ns of cpu-clock: at most 80000 samples per CPU second

[ "$(id -u)" -eq 0 ] || { echo "run-report: needs root" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "run-report: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
[ -x "$PERF" ] || { echo "run-report: needs $PERF (linux-perf)" >&2; exit 1; }
make -s -C "$bpfrec_dir" bpfrec .output/stat-prog >&2

tmp=$(mktemp -d /tmp/bpfrec-report-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/busy.c" <<'C'
#include <stdlib.h>
static volatile unsigned long sink;

__attribute__((noinline)) void busy_leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) void busy_mid(unsigned long n)
{
	busy_leaf(n / 2);
	busy_leaf(n / 2);
}

int main(int argc, char **argv)
{
	busy_mid(strtoul(argv[1], NULL, 10));
	return 0;
}
C
gcc -O1 -g -fno-omit-frame-pointer "$tmp/busy.c" -o "$tmp/busy"

# perf records every CPU (-a) while both workloads run, until the file
# holds about @want samples (cpu-clock's rate falls short of the period
# on a loaded VM: perf script counts them every 5 s).  What else runs on
# the machine is in the file too, as in a real system-wide profile.
"$tmp/busy" 100000000000 &
busy=$!
"$STAT_PROG" -r 100000000000 -k 1000000 >/dev/null &
prog=$!
sleep 0.5
"$PERF" record -q -e cpu-clock -c "$period" -g -a -o "$tmp/bench.data" 2>"$tmp/perf.err" &
rec=$!
secs=0
while sleep 5; do
	secs=$((secs + 5))
	# a running recording's size says little: estimate from the bytes so far
	bytes=$(stat -c %s "$tmp/bench.data" 2>/dev/null || echo 0)
	[ "$bytes" -lt $((want * 200)) ] && [ "$secs" -lt 600 ] || break
done
kill -INT "$rec"
wait "$rec" || true
kill "$busy" "$prog"
wait "$busy" "$prog" 2>/dev/null || true
samples=$("$BPFREC" report -i "$tmp/bench.data" --sort comm --json |
	python3 -c 'import json,sys; print(sum(json.loads(l)["samples"] for l in sys.stdin))')

# best TOOL ARGS...: "wall-seconds cpu-seconds KiB", the best of $runs runs
best() {
	local i t u sy m c bt= bc= bm=
	for i in $(seq "$runs"); do
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err"
		read -r t u sy m <"$tmp/time"
		c=$(echo "$u + $sy" | bc)
		if [ -z "$bt" ] || [ "$(echo "$t < $bt" | bc)" = 1 ]; then bt=$t; fi
		if [ -z "$bc" ] || [ "$(echo "$c < $bc" | bc)" = 1 ]; then bc=$c; fi
		if [ -z "$bm" ] || [ "$m" -lt "$bm" ]; then bm=$m; fi
	done
	echo "$bt $bc $bm"
}

read -r pt pc pm < <(best "$PERF" report -i "$tmp/bench.data" --stdio)
read -r ft fc fm < <(best "$PERF" report -i "$tmp/bench.data" --stdio --no-children -g none)
read -r bt bc bm < <(best "$BPFREC" report -i "$tmp/bench.data")
read -r ot oc om < <(best "$BPFREC" report -i "$tmp/bench.data" --folded)

ratio() { echo "scale=3; $1 / $2" | bc | sed 's/^\./0./'; }
echo "file: $samples samples with call chains, $(( $(stat -c %s "$tmp/bench.data") / 1048576 )) MiB; best of $runs runs; load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-44s %8s %8s %9s %10s %10s\n' "report" "wall (s)" "CPU (s)" "RSS (MiB)" "CPU ratio" "RSS ratio"
row() {
	printf '%-44s %8s %8s %9s %10s %10s\n' "$1" "$2" "$3" "$(echo "scale=1; $4 / 1024" | bc)" "$5" "$6"
}
row "perf report --stdio" "$pt" "$pc" "$pm" - -
row "perf report --stdio --no-children -g none" "$ft" "$fc" "$fm" - -
row "bpfrec report" "$bt" "$bc" "$bm" "$(ratio "$bc" "$pc")" "$(ratio "$bm" "$pm")"
row "bpfrec report --folded" "$ot" "$oc" "$om" "$(ratio "$oc" "$pc")" "$(ratio "$om" "$pm")"
echo "(ratios: bpfrec / perf report --stdio; bpfrec report against perf's flat table:" \
	"$(ratio "$bc" "$fc")x CPU, $(ratio "$bm" "$fm")x RSS)"
