#!/bin/bash
# Build the kselftests with the patched tree's own framework (lib.mk, kselftest_harness.h,
# run_kselftest.sh): the tree's perf_events target as a regression check plus the project's
# targets from selftests/, installed (run_kselftest.sh, kselftest-list.txt) into OUT.
# They are built against the patched kernel, the debug one with --debug: the bpf_events
# target builds a test module, which loads only into the kernel it was built with (on the
# unpatched base its test SKIPs before loading it, and the tests need the patched uapi).
#   usage: scripts/build-selftests.sh [--debug] OUT
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kflags=()
if [ "${1:-}" = --debug ]; then
	kflags+=(--debug)
	shift
fi
[ $# -eq 1 ] || { echo "usage: $0 [--debug] OUT" >&2; exit 2; }
install=$(realpath -m "$1")
tree=$("$TOP/scripts/prepare-source.sh")
kbuild=$("$TOP/scripts/build-kernel.sh" "${kflags[@]}")
out=$CACHE/kselftest-$BASE
mkdir -p "$out"
exec 7>"$out/.lock"
flock 7
targets="perf_events"
for d in "$TOP"/selftests/*/; do
	[ -f "$d/Makefile" ] || continue
	t=$(basename "$d")
	rsync -a --delete "$d" "$tree/tools/testing/selftests/$t/"
	targets="$targets $t"
done

rm -rf "$install"
log=$out/build.log
ksmake=(make -C "$tree/tools/testing/selftests" O="$kbuild" KSFT_INSTALL_PATH="$install")
# 6.1's selftests Makefile only fails when every target fails: build one at a time.
for t in $targets; do
	logged "$log" "${ksmake[@]}" TARGETS="$t"
done
logged "$log" "${ksmake[@]}" TARGETS="$targets" install
stage "kselftests built: $(wc -l <"$install/kselftest-list.txt") tests in $targets" >&2
