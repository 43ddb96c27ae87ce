#!/bin/bash
# Build perf from the primary base's patched tree with the perf tools follow-up
# (its series folder's perf-tools, patches/perf-tools) applied on top: the series' in-tree consumer, which the guest
# tests run on a file bpfrec recorded. The build is cached under $CACHE/perf-$BASE and
# reused while its key (the series, the follow-up, the features, the toolchain) holds.
# Prints the path of the perf binary. The follow-up's shell test, which the guest tests
# run, is copied beside it (record_bpf_obj_events.sh).
#   usage: scripts/build-perf.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
select_base "$(bases | head -n 1)"
tree=$("$TOP/scripts/prepare-source.sh")
follow_up=$BASE_SERIES/perf-tools
mapfile -t patches < <(grep -v '^#' "$follow_up/series" | sed "s|^|$follow_up/|")

work=$CACHE/perf-$BASE
src=$work/tree
out=$work/build
mkdir -p "$work"
exec 7>"$work/.lock"
flock 7
exec 9>"$CACHE/.source-$BASE.lock"
flock -s 9
commit=$(git -C "$tree" rev-parse HEAD)
# Only what the records need: libelf and the bundled libbpf (which names map, link and
# attach types). The language bindings, GUIs and BPF skeletons would only make it slower,
# and libLLVM (disassembly) would add 170 MB of libraries to every guest's initramfs.
features=(NO_LIBPYTHON=1 NO_LIBPERL=1 NO_SLANG=1 NO_GTK2=1 NO_LIBUNWIND=1 NO_LIBNUMA=1
	NO_LIBBABELTRACE=1 NO_JVMTI=1 NO_LIBCRYPTO=1 NO_LIBDEBUGINFOD=1 NO_SDT=1
	NO_DEMANGLE=1 NO_LIBLLVM=1 NO_CAPSTONE=1 BUILD_BPF_SKEL=0)
# perf 7.x builds Rust test workloads (for perf test, which the guests do not run)
# whenever it finds a rustc: one from rustup rather than Debian made the archive of
# perf's tests fail on 7.2 ("LLVM ERROR: Invalid encoding"). Older trees lack the option.
grep -q NO_RUST "$tree/tools/perf/Makefile.config" && features+=(NO_RUST=1)
key=$({
	series_hash
	cat "${patches[@]}"
	echo "${features[*]}"
	gcc --version | head -n 1
} | sha256sum | cut -c1-16)
if [ "$(cat "$work/.bpfrec-key" 2>/dev/null)" = "$key" ] && [ -x "$out/perf" ]; then
	stage "perf with the follow-up: cached ($key)" >&2
	echo "$out/perf"
	exit 0
fi
rm -f "$work/.bpfrec-key"

# A worktree of the base's repository, at the patched tree's commit plus the follow-up.
reset_worktree "$("$TOP/scripts/prepare-source.sh" --unpatched)" "$src" "$commit"
logged "$work/am.log" git -C "$src" am -q "${patches[@]}"

stage "perf with the follow-up: building in $out (log: $work/build.log)" >&2
mkdir -p "$out"
logged "$work/build.log" make -C "$src/tools/perf" O="$out" -j"$(nproc)" "${features[@]}"
install -m 0755 "$src/tools/perf/tests/shell/record_bpf_obj_events.sh" "$out/"
echo "$key" >"$work/.bpfrec-key"
echo "$out/perf"
