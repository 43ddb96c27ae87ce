#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Peak memory of `bpfrec script` on storm recordings of N and 10 N
# programs: the reader streams the file round by round, so what grows
# with the file is the facts of its objects, not its records.  Peak RSS
# is /usr/bin/time -v's "Maximum resident set size", for the text and the
# JSON output (text reads the file twice, for the column widths).
#
#   bench/run-script-rss.sh [N]     default 20000; root; builds what it needs
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bpfrec_dir=$here/../tools/bpfrec
BPFREC=${BPFREC:-$bpfrec_dir/bpfrec}
STORM=${STORM:-$bpfrec_dir/.output/storm}
n=${1:-20000}

[ "$(id -u)" -eq 0 ] || { echo "run-script-rss: needs root" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "run-script-rss: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
make -s -C "$bpfrec_dir" bpfrec .output/storm >&2

tmp=$(mktemp -d /tmp/bpfrec-rss.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# rss_kb FILE ARGS...: peak RSS of bpfrec script -i FILE ARGS, output dropped
rss_kb() {
	local f=$1
	shift
	/usr/bin/time -v "$BPFREC" script -i "$f" "$@" 2>"$tmp/time" >/dev/null
	sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time"
}

printf '%-8s %10s %10s %14s %14s\n' programs "file (MiB)" records "text RSS (KiB)" "json RSS (KiB)"
for size in "$n" $((n * 10)); do
	"$BPFREC" record -o "$tmp/storm.data" -- "$STORM" -n "$size" >/dev/null 2>"$tmp/rec.err"
	records=$("$BPFREC" script -i "$tmp/storm.data" --json | wc -l)
	printf '%-8s %10.1f %10s %14s %14s\n' "$size" \
		"$(echo "$(stat -c %s "$tmp/storm.data") / 1048576" | bc -l)" "$records" \
		"$(rss_kb "$tmp/storm.data")" "$(rss_kb "$tmp/storm.data" --json)"
done
