# SPDX-License-Identifier: GPL-2.0
#
# Checks of profiles shared by the host tests (tests/host/offcpu.sh,
# tests/host/report.sh) and the guest's (tests/guest/sampling.sh): POSIX
# sh and awk only, as busybox has them.  Sourced; the caller sets
# $BPFREC, $SLEEPER and $tmp.

# within A B PCT: A is within PCT % of B
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; exit !(d <= b * p / 100 && -d <= b * p / 100) }'
}

# ratio A B: A / B
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { print a / b }'
}

# sleeper_ran OUT ERR: what the sleeper (tests/offcpu/sleeper.c) printed
# in OUT and its recorder in ERR tell: how long the sleeps took by the
# sleeper's clock in $slept, the intervals not measured in $unmeasured
sleeper_ran() {
	slept=$(awk '$1 == "slept" { print $2 }' "$1")
	# intervals the kernel gave no task storage for (another BPF user held it), or whose
	# end neither a sched_switch nor the thread's CPU time told: said, not measured
	unmeasured=$(sed -n 's/.* \([0-9]*\) unmeasured (task storage busy, or no end known)$/\1/p' "$2" |
		awk '{ n += $1 } END { print n + 0 }')
}

# offcpu_stats FILE START SIZE FUNC [THRESH_NS]: of the offcpu-time samples
# of FILE whose innermost user frame lies in the function at START (hex,
# SIZE bytes, as nm -S prints them; a frame named FUNC+OFF counts too),
# "LONG ALL SUM TIMES PIDS": how many last at least THRESH_NS (0), how many
# in all, their ns, their distinct times, the pids they name ("1234,1240",
# or "-"); the durations of the long ones, one a line, in $tmp/durations
offcpu_stats() {
	"$BPFREC" script -i "$1" --json >"$tmp/stats.json" || return 1
	offcpu_stats_json "$tmp/stats.json" "$2" "$3" "$4" "${5:-0}"
}

# offcpu_stats_json JSON START SIZE FUNC [THRESH_NS]: offcpu_stats of the
# lines of `bpfrec script --json` in the file JSON.  The innermost user frame
# is the first frame with a file ("sym+0x10 (/path)") or an address below
# 2^47 ("0x4016b4"): the kernel frames before it have neither.  Only that
# frame counts.  The frames after it are what the frame pointers led to, and
# a process built without them (glibc) can lead to any word of its stack:
# the recorder of the sleeper once had the sleeper's return address
# 0x4016b4, read from a sample it was writing, on its stack below libc's
# syscall().
offcpu_stats_json() {
	awk -v start="$2" -v size="$3" -v fname="$4" -v thresh="${5:-0}" -v out="$tmp/durations" '
	function hex(s,   i, c, n) {
		s = tolower(s)
		sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", substr(s, i, 1))
			if (!c)
				return -1
			n = n * 16 + c - 1
		}
		return n
	}
	BEGIN {
		lo = hex(start)
		hi = lo + hex(size)
		printf "" >out
	}
	/"event":"offcpu-time"/ {
		ns = $0
		sub(/.*"off_cpu_ns":/, "", ns)
		sub(/[^0-9].*/, "", ns)
		cc = $0
		sub(/.*"callchain":\[/, "", cc)
		sub(/\].*/, "", cc)
		gsub(/"/, "", cc)
		nf = split(cc, f, ",")
		uip = -1
		for (i = 1; i <= nf && uip < 0; i++) {
			if (index(f[i], fname "+") == 1)
				uip = lo
			else if (index(f[i], " ("))
				uip = hi
			else if ((a = hex(f[i])) >= 0 && a < 140737488355328)
				uip = a
		}
		if (uip < lo || uip >= hi)
			next
		n++
		total += ns
		t = $0
		sub(/.*"time_ns":/, "", t)
		sub(/[^0-9].*/, "", t)
		if (!(t in times))
			ntimes++
		times[t] = 1
		p = $0
		sub(/.*"pid":/, "", p)
		sub(/[^0-9].*/, "", p)
		pids[p] = 1
		if (ns + 0 >= thresh + 0) {
			long++
			print ns >out
		}
	}
	END {
		np = 0
		for (p in pids)
			sorted[++np] = p + 0
		for (i = 2; i <= np; i++)
			for (j = i; j > 1 && sorted[j - 1] > sorted[j]; j--) {
				x = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = x
			}
		list = np ? sorted[1] : "-"
		for (i = 2; i <= np; i++)
			list = list "," sorted[i]
		printf "%d %d %.0f %d %s\n", long, n, total, ntimes, list
	}' "$1"
}

# folded_known FOLDED COMM FUNC: of `bpfrec report --folded` lines,
# "LINES SUM BAD": how many stacks of COMM go from main into FUNC
# ("COMM;...;main;...;FUNC;..."), what they sum to (ns with --off-cpu), and
# the first line that is not "COMM;FRAME;...;FRAME COUNT" in sorted
# order, or "-"
folded_known() {
	awk -v comm="$2" -v fname="$3" '
	{
		stack = $0
		sub(/ [0-9]+$/, "", stack)
		if (bad == "" && (stack == $0 || $0 !~ /^[^; ]+(;[^;]+)+ [0-9]+$/ || $0 < prev))
			bad = NR ": " $0
		prev = $0
		m = index(stack, ";main;")
		if (index(stack, comm ";") == 1 && m && index(substr(stack ";", m + 1), ";" fname ";")) {
			n++
			sum += $NF
		}
	}
	END { printf "%d %.0f %s\n", n, sum, bad == "" ? "-" : bad }' "$1"
}

# bpf_share JSON NAME: of `bpfrec report --sort dso,bpf --json` rows,
# "MINE ALL": the samples in BPF code of the program NAME (id ...), and
# the samples in BPF code in all
bpf_share() {
	awk -v want="$2" '
	/"dso":"\[bpf\]"/ {
		n = $0
		sub(/.*"samples":/, "", n)
		sub(/[^0-9].*/, "", n)
		all += n
		if (index($0, "\"bpf\":\"" want "\""))
			mine += n
	}
	END { print mine + 0, all + 0 }' "$1"
}
