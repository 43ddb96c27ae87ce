# Shared helpers for the scripts: cache paths, stage lines, logged commands.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${BPFREC_CACHE:-/var/cache/bpfrec}
T0=${T0:-$(date +%s)}

# stage NAME: print a progress line with the time elapsed since the script started.
stage() {
	printf '[%4ds] %s\n' $(($(date +%s) - T0)) "$*"
}

die() {
	echo "error: $*" >&2
	exit 1
}

# logged LOG CMD...: run CMD with its output in LOG; on failure show the tail and fail.
logged() {
	local log=$1
	shift
	if ! "$@" >"$log" 2>&1; then
		echo "---- last lines of $log ----" >&2
		tail -n 40 "$log" >&2
		die "'$*' failed; full log: $log"
	fi
}

# The installed linux-source-6.1 version, e.g. 6.1.192.
base_version() {
	local v
	v=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
		die "linux-source-6.1 is not installed; run scripts/deps.sh"
	echo "${v%%-*}"
}

# The patches listed in patches/series, as paths, in order.
series_patches() {
	local p
	[ -f "$TOP/patches/series" ] || return 0
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		echo "$TOP/patches/$p"
	done <"$TOP/patches/series"
}

# A short hash of the series content (the patch files, in order).
series_hash() {
	local p
	{
		echo "$(base_version)"
		for p in $(series_patches); do
			sha256sum <"$p"
		done
	} | sha256sum | cut -c1-12
}
