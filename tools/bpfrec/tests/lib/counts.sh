# SPDX-License-Identifier: GPL-2.0
#
# Checks of `bpfrec stat` counts shared by the host tests
# (tests/host/stat.sh) and the guest's (tests/guest/stat.sh): POSIX sh
# and awk only, as busybox has them.  Sourced.

# field NAME FILE: the values of JSON member NAME, one per line
field() {
	sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p" "$2"
}

# near VALUE WANT PCT: empty when VALUE is within PCT % of WANT, else why not
near() {
	awk -v v="$1" -v w="$2" -v p="$3" 'BEGIN {
		d = v - w; if (d < 0) d = -d
		if (v == "" || d > w * p / 100) print v " is not within " p "% of " w }'
}

# perf_fds PID: perf event fds the process holds
perf_fds() {
	ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'perf_event'
}
