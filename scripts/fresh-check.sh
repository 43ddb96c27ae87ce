#!/bin/bash
# The fresh-machine rehearsal: clone this repository's committed HEAD into a new folder and
# run the README's two commands there, `make run` then `make check`, with a new, empty
# BPFREC_CACHE, timing each. Not part of `make check`: it builds every kernel from scratch.
#   usage: scripts/fresh-check.sh [--keep]
#   --keep  keep the clone and the cache afterwards (default: remove them when all passed)
# Packages are what this machine has: scripts/deps.sh runs as it would on a new one, and
# installs what is missing. Output of each command goes to a log; a failure shows its tail.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

keep=0
case "${1:-}" in
'') ;;
--keep) keep=1 ;;
*) echo "usage: $0 [--keep]" >&2; exit 2 ;;
esac

[ -z "$(git -C "$TOP" status --porcelain --untracked-files=no)" ] ||
	echo "fresh-check: uncommitted changes are not part of the rehearsal (it clones HEAD)" >&2
root=$(mktemp -d /var/tmp/bpfrec-fresh.XXXXXX)
clone=$root/bpfrec
export BPFREC_CACHE=$root/cache
stage "cloning $(git -C "$TOP" rev-parse --short HEAD) into $clone; cache $BPFREC_CACHE (empty)"
git clone -q "$TOP" "$clone"

# timed NAME: run `make NAME` in the clone with its output in a log; print the time.
declare -A took
timed() {
	local log=$root/make-$1.log t=$(date +%s)
	stage "make $1 (log: $log)"
	if ! (cd "$clone" && T0= make "$1") >"$log" 2>&1; then
		echo "---- last lines of $log ----" >&2
		tail -n 30 "$log" >&2
		die "make $1 failed on the fresh clone after $(($(date +%s) - t))s; kept $root"
	fi
	took[$1]=$(($(date +%s) - t))
	stage "make $1: done in $((took[$1] / 60)) min $((took[$1] % 60)) s"
}

timed run
timed check
grep -E '^check: ' "$root/make-check.log"
printf 'fresh-check: make run %d min %d s, make check %d min %d s (cold cache, %s CPUs)\n' \
	$((took[run] / 60)) $((took[run] % 60)) $((took[check] / 60)) $((took[check] % 60)) "$(nproc)"
if [ $keep = 0 ]; then
	rm -rf "$root"
else
	echo "fresh-check: kept $root"
fi
