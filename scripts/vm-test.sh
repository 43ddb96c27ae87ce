#!/bin/bash
# Build the patched kernel, the kselftests, the recorder and perf with the perf tools
# follow-up, boot the guest, run the tests there, and judge the result on the host: TAP
# results against selftests/expected-failures (selftests/not-run stay out of the run),
# the recorder's guest tests, and a splat-free console.
#   usage: scripts/vm-test.sh [--base NAME] [--debug] [--unpatched] [--rerun-upstream]
# The debug kernel (KASAN, lockdep) runs the project's own targets only: the tree's
# perf_events target already takes minutes under TCG without them. So does --unpatched,
# the pristine base: there the object tests SKIP and the regression test of the fix
# fails, as selftests/expected-failures says.
# The tree's perf_events target is unchanged upstream code: once it passed on a kernel
# build, its verdict is kept, keyed by that build's key and the hash of the installed
# test binaries, and the next run with the same key reuses it and says so (about 90 s
# under TCG). --rerun-upstream (or BPFREC_RERUN_UPSTREAM=1) runs it anyway.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

vmargs=()
targets=()
flavour=default
variant=patched
while [ $# -gt 0 ]; do
	case "$1" in
	--base) select_base "${2:-}"; shift ;;
	--debug) flavour=debug ;;
	--unpatched) variant=unpatched ;;
	--rerun-upstream) BPFREC_RERUN_UPSTREAM=1 ;;
	*) echo "usage: $0 [--base NAME] [--debug] [--unpatched] [--rerun-upstream]" >&2; exit 2 ;;
	esac
	shift
done
name=$BASE-$variant-$flavour
if [ $flavour = debug ]; then
	vmargs+=(--debug)
fi
if [ $variant = unpatched ]; then
	vmargs+=(--unpatched)
fi
if [ $flavour = debug ] || [ $variant = unpatched ]; then
	for d in "$TOP"/selftests/*/; do
		[ -f "$d/Makefile" ] && targets+=("$(basename "$d")")
	done
fi

stage "building the recorder and its guest tests" >&2
logged "$CACHE/logs/bpfrec-build.$$.log" make -C "$TOP/tools/bpfrec" bpfrec guest-tests
guest=$TOP/tools/bpfrec/.output/guest

stage_dir=$(mktemp -d)
trap 'rm -rf "$stage_dir"' EXIT
ksft=$stage_dir/kselftest
ksflags=()
[ $flavour = debug ] && ksflags+=(--debug)
"$TOP/scripts/build-selftests.sh" "${ksflags[@]}" "$ksft"

# upstream_key: the kernel build's key and the perf_events binaries, as one hash.
upstream_key() {
	{
		cat "$("$TOP/scripts/build-kernel.sh" 2>/dev/null)/.bpfrec-key"
		find "$ksft/perf_events" -type f -print0 | sort -z | xargs -0 sha256sum |
			sed "s|$ksft/||"
	} | sha256sum | cut -c1-16
}
verdicts=$CACHE/verdicts
mkdir -p "$verdicts"
if [ $flavour = default ] && [ $variant = patched ]; then
	ukey=$(upstream_key)
	if [ "${BPFREC_RERUN_UPSTREAM:-0}" != 1 ] && [ -f "$verdicts/perf_events-$ukey" ]; then
		stage "perf_events: passed on this kernel build and these binaries on $(cat "$verdicts/perf_events-$ukey"); not run again (--rerun-upstream runs it)" >&2
		for d in "$TOP"/selftests/*/; do
			[ -f "$d/Makefile" ] && targets+=("$(basename "$d")")
		done
	fi
fi
if [ ${#targets[@]} -gt 0 ]; then
	grep -E "^($(IFS='|'; echo "${targets[*]}")):" "$ksft/kselftest-list.txt" >"$ksft/list"
	mv "$ksft/list" "$ksft/kselftest-list.txt"
fi
# Tests that cannot give a result on this kernel stay out of its run (check-tap.sh
# names each, with the reason).
notrun=$(kernel_tests "$TOP/selftests/not-run" "$BASE-$variant" | cut -d' ' -f1)
if [ -n "$notrun" ]; then
	grep -vxF "$notrun" "$ksft/kselftest-list.txt" >"$ksft/list" || true
	mv "$ksft/list" "$ksft/kselftest-list.txt"
fi
mkdir -p "$stage_dir/bin"
cp "$TOP/tools/bpfrec/bpfrec" "$TOP/scripts/guest-tests.sh" "$stage_dir/bin/"
# perf with the perf tools follow-up, which the recorder's guest tests run on its files,
# and the follow-up's shell test
perf=$("$TOP/scripts/build-perf.sh")
strip -o "$stage_dir/bin/perf" "$perf"
cp "${perf%/*}/record_bpf_obj_events.sh" "$stage_dir/bin/"
adds=("$stage_dir/kselftest/.:/opt/kselftest" "$stage_dir/bin/.:/opt/bpfrec/bin")
adds+=("$guest:/opt/bpfrec/tests")

# bpf_events:link_order runs BPF_EVENTS_LINK_ITERS link lifecycles in each of its four
# stress windows (10000 by default, for real machines). Under TCG a lifecycle of the
# XDP window alone costs 75 to 85 ms (a dummy device is created and deleted each time),
# so the guests run fewer (link_iters below), which keeps the test within the
# target's 300 s limit (bpf_events/settings) and the whole run within the guest's.
# Setting BPF_EVENTS_LINK_ITERS on the host runs that many instead, and gives the run
# the time it needs at 0.15 s (0.8 s on the debug kernel) per lifecycle of all four
# windows together. A quiet machine needed 0.1 s on Nov 26; on Nov 27, with kernel
# builds beside it, three windows of 10000 took most of the 1300 s that 0.1 s gave.
# On the debug kernel beside another debug guest (Nov 27), a netns lifecycle took
# 0.2 s and an XDP one 0.26 s, so the four windows need about 0.65 s together; each
# window has its own limit in the test (WINDOW_TIMEOUT, 3600 s).
# The debug guest needs 893 s on a quiet machine (7.2, Nov 26), so it runs 200
# lifecycles, not 400. A machine that is busy beside it must not turn a slow run into
# a failed one: beside another guest and two builds it took 1,779 s (the fresh-machine
# rehearsal of Nov 26), and beside two rehearsals more than 2,400 s (Nov 27). A hung
# guest is caught by vm.sh's stall watchdog (15 minutes without a line on the
# console), so the whole-run limits below are several times the quiet machine's.
link_iters=1000
per_ms=150
guest_timeout=2400
if [ $flavour = debug ]; then
	link_iters=200
	per_ms=800
	guest_timeout=3600
fi
guest_env=(env BPF_EVENTS_LINK_ITERS="${BPF_EVENTS_LINK_ITERS:-$link_iters}")
if [ -n "${BPF_EVENTS_LINK_ITERS:-}" ]; then
	extra=$((BPF_EVENTS_LINK_ITERS * per_ms / 1000))
	guest_env+=(KSFT_OVERRIDE_TIMEOUT=$((300 + extra)))
	guest_timeout=$((guest_timeout + extra))
fi

# One log per run: several runs may share the cache at once.
log=$CACHE/logs/vm-test-$name.$$.log
"$TOP/scripts/vm.sh" "${vmargs[@]}" --quiet --timeout "$guest_timeout" --log "$log" \
	$(printf -- '--add %s ' "${adds[@]}") -- \
	"${guest_env[@]}" /opt/bpfrec/bin/guest-tests.sh "${targets[@]}"

# On the patched kernel a SKIP in the project's targets would hide a missing feature.
noskip=()
if [ $variant = patched ]; then
	for d in "$TOP"/selftests/*/; do
		[ -f "$d/Makefile" ] && noskip+=(--no-skip "$(basename "$d")")
	done
fi
"$TOP/scripts/check-tap.sh" "$log" "$stage_dir/kselftest/kselftest-list.txt" \
	"$BASE-$variant" "${noskip[@]}"
grep -E '^bpfrec guest: [0-9]+ passed, 0 failed' "$log" ||
	die "the recorder's guest tests did not all pass (see $log)"

# The --hist tests once more, in a guest booted with QEMU's -icount: its clock advances
# one ns per instruction, so run times are as steady as the instructions, and the
# checks that TCG's wall clock (which moves by up to ten times between identical runs)
# makes hist.sh skip are judged: the bimodal split, the p99, another program's ns per
# run within 1 %. The primary base's patched default kernel only: the checks are about
# bpfrec, not the kernel, and the debug kernel would make the run much longer.
if [ $flavour = default ] && [ $variant = patched ] && [ "$BASE" = "$(bases | head -n 1)" ] &&
   [ -x "$guest/run.sh" ]; then
	hlog=$CACHE/logs/vm-test-$name-icount.$$.log
	stage "$name: the --hist tests again under QEMU's -icount (a steady clock)"
	"$TOP/scripts/vm.sh" "${vmargs[@]}" --icount --quiet --timeout 1200 --log "$hlog" \
		$(printf -- '--add %s ' "${adds[@]}") -- \
		env BPFREC_GUEST_PARTS=hist /opt/bpfrec/tests/guest/run.sh >"$hlog.out" || true
	cat "$hlog.out"
	grep -qE '^bpfrec guest: [0-9]+ passed, 0 failed' "$hlog.out" ||
		die "the --hist tests under -icount did not all pass (see $hlog.out)"
	! grep -E '^skip  stat -b --hist: ([0-9]+ runs below|p99|another program)' "$hlog.out" ||
		die "the --hist tests under -icount skipped what a steady clock should judge (see $hlog.out)"
fi
# Only a run that judged perf_events, with everything else clean, records its verdict.
if [ -n "${ukey:-}" ] && grep -q '^perf_events:' "$ksft/kselftest-list.txt"; then
	date -u '+%Y-%m-%d %H:%M UTC' >"$verdicts/perf_events-$ukey"
fi
