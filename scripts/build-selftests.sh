#!/bin/bash
# Build the kselftests with the patched tree's own framework (lib.mk, kselftest_harness.h,
# run_kselftest.sh): the tree's perf_events target as a regression check plus the project's
# targets from selftests/. Prints the install directory (run_kselftest.sh inside).
#   usage: scripts/build-selftests.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=$("$TOP/scripts/prepare-source.sh")
kbuild=$("$TOP/scripts/build-kernel.sh")
targets="perf_events"
for d in "$TOP"/selftests/*/; do
	[ -f "$d/Makefile" ] || continue
	t=$(basename "$d")
	rsync -a --delete "$d" "$tree/tools/testing/selftests/$t/"
	targets="$targets $t"
done

out=$CACHE/kselftest
rm -rf "$out"
mkdir -p "$out"
log=$out/build.log
ksmake=(make -C "$tree/tools/testing/selftests" O="$kbuild" KSFT_INSTALL_PATH="$out/install")
# 6.1's selftests Makefile only fails when every target fails: build one at a time.
for t in $targets; do
	logged "$log" "${ksmake[@]}" TARGETS="$t"
done
logged "$log" "${ksmake[@]}" TARGETS="$targets" install
stage "kselftests built: $(wc -l <"$out/install/kselftest-list.txt") tests in $targets" >&2
echo "$out/install"
