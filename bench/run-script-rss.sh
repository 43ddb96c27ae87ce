#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Peak memory of `bpfrec script` on storm recordings of N and 10 N programs
# of distinct names (storm -p: stormN), beside `perf script
# --show-bpf-events` of the same file, its peer.  The reader streams the
# file round by round, looks the objects' facts up by id rather than
# holding them, and holds only the BPF images alive at the current record,
# so its peak should not grow with the number of programs: the last line
# gives each column's ratio, 10 N over N (goal: at most 1.5).  Peak RSS is
# /usr/bin/time -v's "Maximum resident set size", for the text and the JSON
# output (text reads the file twice, for the column widths).
#
#   bench/run-script-rss.sh [N]     default 20000; root; builds what it needs
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bpfrec_dir=$here/../tools/bpfrec
BPFREC=${BPFREC:-$bpfrec_dir/bpfrec}
STORM=${STORM:-$bpfrec_dir/.output/storm}
PERF=${PERF:-perf}
n=${1:-20000}

[ "$(id -u)" -eq 0 ] || { echo "run-script-rss: needs root" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "run-script-rss: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
make -s -C "$bpfrec_dir" bpfrec .output/storm >&2

tmp=$(mktemp -d /tmp/bpfrec-rss.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# rss_kb CMD ARGS...: peak RSS of CMD, its output dropped
rss_kb() {
	/usr/bin/time -v "$@" 2>"$tmp/time" >/dev/null
	sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time"
}

printf '%-8s %10s %10s %14s %14s %14s\n' programs "file (MiB)" records \
	"text RSS (KiB)" "json RSS (KiB)" "perf RSS (KiB)"
for size in "$n" $((n * 10)); do
	"$BPFREC" record -o "$tmp/storm.data" -- "$STORM" -n "$size" -p storm \
		>/dev/null 2>"$tmp/rec.err"
	records=$("$BPFREC" script -i "$tmp/storm.data" --json | wc -l)
	text=$(rss_kb "$BPFREC" script -i "$tmp/storm.data")
	json=$(rss_kb "$BPFREC" script -i "$tmp/storm.data" --json)
	perf=$(rss_kb "$PERF" script -i "$tmp/storm.data" --show-bpf-events)
	printf '%-8s %10.1f %10s %14s %14s %14s\n' "$size" \
		"$(echo "$(stat -c %s "$tmp/storm.data") / 1048576" | bc -l)" "$records" \
		"$text" "$json" "$perf"
	echo "$text $json $perf" >>"$tmp/rss"
done
awk 'NR == 1 { t = $1; j = $2; p = $3 }
     NR == 2 { printf "%-8s %10s %10s %14.2f %14.2f %14.2f\n", "10N/N", "", "", $1 / t, $2 / j, $3 / p }' \
	"$tmp/rss"
