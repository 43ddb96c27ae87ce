#!/bin/bash
# The one test command behind `make check`: every suite in turn, one stage line each; a
# failing suite does not stop the others. Each suite's whole output goes to its own log
# under $CACHE/logs; the stage line shows the suite's summary, and a failure shows the
# tail of its log. Ends with one summary line and fails when any suite failed.
#   usage: scripts/check.sh [SUITE...]     (default: every suite; `scripts/check.sh -l` lists them)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

FUZZ_SECONDS=${FUZZ_SECONDS:-30}

# fuzz: libFuzzer's thousands of progress lines go to a log of their own; one line sums
# them up: executions, seconds, corpus size and crashes (libFuzzer stops at the first).
suite_fuzz() {
	local flog=$CACHE/logs/fuzz.$$.log runs secs corp
	if ! make -s -C "$TOP/tools/bpfrec" fuzz-test FUZZ_SECONDS="$FUZZ_SECONDS" >"$flog" 2>&1; then
		tail -n 30 "$flog"
		echo "fuzz: the fuzzer failed or found a crash; full log: $flog"
		return 1
	fi
	# one "Done" line per entry point (reader, script, report), in that order
	runs=$(sed -nE 's/^Done ([0-9]+) runs in ([0-9]+) second.*/\1/p' "$flog" | paste -sd/)
	secs=$(sed -nE 's/^Done ([0-9]+) runs in ([0-9]+) second.*/\2/p' "$flog" | paste -sd/)
	corp=$(grep -oE 'corp: [0-9]+' "$flog" | tail -n 1 | cut -d' ' -f2)
	echo "fuzz: reader/script/report ${runs:-?} executions in ${secs:-?} s, last corpus ${corp:-?} inputs, 0 crashes (log: $flog)"
}

# suites: NAME and command, in the order they run. Every base of kernel/bases gets its
# series check, and the guest runs its GUESTS column names; the demo runs on the primary.
# The host tests read bpfrec's files with Debian's perf and with perf 7.2,
# the primary base's (its tests say SKIP without it). On a fresh machine the
# background build below has not made it yet when the host tests start, so
# they build it first, or wait on its lock and find it built.
suite_host() {
	local plog=$CACHE/logs/host-perf.$$.log perf
	if [ "$primary" = 7.2 ]; then
		if perf=$("$TOP/scripts/build-perf.sh" 2>"$plog"); then
			export PERF72=$perf
		else
			echo "host: perf 7.2 did not build (log: $plog); its tests say SKIP"
		fi
	fi
	make -s -C "$TOP/tools/bpfrec" host-test
}

primary=$(bases | head -n 1)
suites=("scripts:$TOP/scripts/check-scripts.sh")
for b in $(bases); do
	suites+=("series-$b:$TOP/scripts/check-series.sh --base $b")
done
suites+=(
	"unit:make -s -C $TOP/tools/bpfrec unit-test"
	"docs:make -s -C $TOP/tools/bpfrec doc-test"
	"package:$TOP/scripts/check-deb.sh"
	"fuzz:suite_fuzz"
	"host:suite_host"
	"demo:$TOP/scripts/check-demo.sh --base $primary"
)
# The primary's guests first, the debug one included: its run is the longest, so that
# it goes while the other bases' kernels still build (see "Kernels" below).
for b in $(bases); do
	for f in $(base_guests "$b"); do
		case "$f" in
		default) suites+=("guest-$b:$TOP/scripts/vm-test.sh --base $b") ;;
		debug) suites+=("guest-$b-debug:$TOP/scripts/vm-test.sh --base $b --debug") ;;
		*) die "kernel/bases: unknown guest flavour '$f' for base $b" ;;
		esac
	done
done

if [ "${1:-}" = -l ]; then
	printf '%s\n' "${suites[@]%%:*}"
	exit 0
fi
want=" $* "
nwant=$#

# Suites bounded by wall time rather than work (the fuzz run) start at once in the
# background, beside the others; their stage lines still come in the suites' order.
background=" fuzz "

# A suite that passed is not run again while nothing it could depend on changed: its
# verdict is kept under $CACHE/verdicts, keyed by the content of every file of the
# checkout (tracked or not ignored), the installed packages and the running kernel.
# Any change to the tree, to a package or a reboot into another kernel runs everything;
# BPFREC_RERUN=1 (CI sets it) runs every suite whatever the verdicts say.
verdicts=$CACHE/verdicts
mkdir -p "$verdicts"
inputs_key=$({
	git -C "$TOP" ls-files -z -co --exclude-standard |
		(cd "$TOP" && xargs -0 sha256sum 2>/dev/null)
	dpkg-query -W 2>/dev/null
	uname -rv
	echo "FUZZ_SECONDS=$FUZZ_SECONDS"
} | sha256sum | cut -c1-16)

# cached_verdict NAME: the date NAME passed with these inputs, or nothing.
cached_verdict() {
	[ "${BPFREC_RERUN:-0}" != 1 ] && cat "$verdicts/suite-$1-$inputs_key" 2>/dev/null
}

# selected NAME: true when NAME is among the suites asked for (all by default).
selected() {
	[ "$nwant" -eq 0 ] || [[ "$want" == *" $1 "* ]]
}

# A run must leave the work tree as it found it: every file a test writes goes under
# $CACHE or a temporary folder, or is ignored by git. The state before the run is kept
# so that a developer's own uncommitted changes are not counted against it.
tree_before=$(tree_state "$TOP")

prune_logs
declare -A bgpid started
for s in "${suites[@]}"; do
	name=${s%%:*}
	[[ "$background" == *" $name "* ]] && selected "$name" || continue
	[ -z "$(cached_verdict "$name")" ] || continue
	started[$name]=$(date +%s)
	${s#*:} >"$CACHE/logs/check-$name.$$.log" 2>&1 </dev/null &
	bgpid[$name]=$!
	stage "$name: started in the background (log: $CACHE/logs/check-$name.$$.log)"
done

# Kernels: a cold check spends most of its time building them (three, 8 to 10 CPU
# minutes each) and perf with the perf tools follow-up. They build one after the other
# in the background from the start, at the lowest priority, in the order the suites
# need them: they take the CPU the suites before them leave idle (the host tests' waits,
# the fuzzer's single thread, idle guest vCPUs) and step aside when a suite wants it. A
# suite that needs a build waits on its lock and finds it done; a failed background
# build is simply built again, with its error shown, by the suite that needs it.
kernels=()
declare -A wanted
for s in "${suites[@]}"; do
	name=${s%%:*}
	selected "$name" && [ -z "$(cached_verdict "$name")" ] || continue
	case "$name" in
	demo) k="$primary default" ;;
	guest-*-debug) k="${name#guest-}" k="${k%-debug} debug" ;;
	guest-*) k="${name#guest-} default" ;;
	*) continue ;;
	esac
	[ -n "${wanted[$k]:-}" ] || kernels+=("$k")
	wanted[$k]=1
done
if [ ${#kernels[@]} -gt 0 ]; then
	klog=$CACHE/logs/check-kernels.$$.log
	# A session of its own, so that an interrupted check stops the whole build. perf,
	# which the demo and every guest run, comes right after the first kernel.
	setsid nice -n 19 bash -c '
		top=$1
		shift
		ksft=$(mktemp -d)
		for k in "$@"; do
			read -r base flavour <<<"$k"
			flags=()
			[ "$flavour" = debug ] && flags=(--debug)
			echo "== kernel $base $flavour and its kselftests"
			BPFREC_BASE=$base "$top/scripts/build-selftests.sh" "${flags[@]}" "$ksft/out"
			if [ -z "${perf_built:-}" ]; then
				echo "== perf with the perf tools follow-up"
				"$top/scripts/build-perf.sh"
				perf_built=1
			fi
		done
		rm -rf "$ksft"' kernels "$TOP" "${kernels[@]}" >"$klog" 2>&1 </dev/null &
	kpid=$!
	trap 'kill -- -"$kpid" 2>/dev/null' EXIT
	trap 'exit 130' INT TERM
	list=$(printf '%s, ' "${kernels[@]/ default/}")
	stage "kernels: building ${list}perf in the background at nice 19 (log: $klog)"
fi

passed=0
failed=()
for s in "${suites[@]}"; do
	name=${s%%:*}
	cmd=${s#*:}
	selected "$name" || continue
	log=$CACHE/logs/check-$name.$$.log
	when=$(cached_verdict "$name")
	if [ -n "$when" ]; then
		passed=$((passed + 1))
		stage "$name: passed on $when with these exact inputs (tree, packages, kernel); not run again (BPFREC_RERUN=1 runs it)"
		continue
	fi
	if [ -n "${bgpid[$name]:-}" ]; then
		t=${started[$name]}
		wait "${bgpid[$name]}" && rc=0 || rc=$?
	else
		t=$(date +%s)
		stage "$name: running (log: $log)"
		$cmd >"$log" 2>&1 </dev/null && rc=0 || rc=$?
	fi
	if [ $rc = 0 ]; then
		passed=$((passed + 1))
		date -u '+%Y-%m-%d %H:%M UTC' >"$verdicts/suite-$name-$inputs_key"
		stage "$name: passed in $(($(date +%s) - t))s: $(grep -v '^\s*$' "$log" | tail -n 1)"
	else
		failed+=("$name")
		stage "$name: FAILED in $(($(date +%s) - t))s; last lines of $log:"
		tail -n 25 "$log" | sed 's/^/    /'
	fi
done
left=$(tree_leftovers "$TOP" "$tree_before")
if [ -n "$left" ]; then
	failed+=(clean-tree)
	stage "clean-tree: FAILED: the run left these files in the work tree (git status):"
	printf '%s\n' "$left" | head -n 20 | sed 's/^/    /'
fi
[ ${#failed[@]} -eq 0 ] || echo "failed suites: ${failed[*]}"
echo "check: $passed passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
