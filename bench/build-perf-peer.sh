#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build upstream perf from the primary base's pristine tree (Debian's
# linux-source, no patches of ours) with its BPF skeletons, the peer of
# `bpfrec record --off-cpu` in bench/run-offcpu.sh: `perf record --off-cpu`
# needs them, and the perf that scripts/build-perf.sh builds for the tests
# leaves them out. Cached under $BPFREC_CACHE/perf-BASE-skel while the tree
# and the toolchain are the same. Prints the path of the perf binary.
#   usage: bench/build-perf-peer.sh
#   PERF_OFFCPU=$(bench/build-perf-peer.sh) bench/run-offcpu.sh
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
select_base "$(bases | head -n 1)"
tree=$("$TOP/scripts/prepare-source.sh" --unpatched)
out=$CACHE/perf-$BASE-skel
mkdir -p "$out"
exec 7>"$out/.lock"
flock 7
# The same features as the tests' perf, but with the BPF skeletons (clang builds them).
features=(NO_LIBPYTHON=1 NO_LIBPERL=1 NO_SLANG=1 NO_GTK2=1 NO_LIBUNWIND=1 NO_LIBNUMA=1
	NO_LIBBABELTRACE=1 NO_JVMTI=1 NO_LIBDEBUGINFOD=1 NO_SDT=1 NO_LIBLLVM=1 NO_CAPSTONE=1
	BUILD_BPF_SKEL=1)
grep -q NO_RUST "$tree/tools/perf/Makefile.config" && features+=(NO_RUST=1)
key=$({
	git -C "$tree" rev-parse HEAD
	echo "${features[*]}"
	gcc --version | head -n 1
	clang --version | head -n 1
} | sha256sum | cut -c1-16)
if [ "$(cat "$out/.bpfrec-key" 2>/dev/null)" = "$key" ] && [ -x "$out/perf" ]; then
	stage "perf $BASE with BPF skeletons: cached ($key)" >&2
	echo "$out/perf"
	exit 0
fi
rm -f "$out/.bpfrec-key"
stage "perf $BASE with BPF skeletons: building in $out (log: $out/build.log)" >&2
logged "$out/build.log" make -C "$tree/tools/perf" O="$out" -j"$(nproc)" "${features[@]}"
"$out/perf" record --off-cpu -o "$out/check.data" -- true >/dev/null 2>&1 ||
	die "perf $BASE in $out does not run --off-cpu (no BPF skeletons?): see $out/build.log"
rm -f "$out/check.data"
echo "$key" >"$out/.bpfrec-key"
echo "$out/perf"
