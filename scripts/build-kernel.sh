#!/bin/bash
# Build the guest kernel with kbuild out of tree, cached under $CACHE/build.
# Prints the build directory (arch/x86/boot/bzImage, vmlinux, usr/include inside).
#   usage: scripts/build-kernel.sh [--base NAME] [--debug] [--unpatched]
#   --base NAME  a base of kernel/bases (default: $BPFREC_BASE, else the primary)
#   --debug      merge kernel/config-debug (KASAN, lockdep, atomic-sleep checks)
# The fragments are kernel/config, the base's own kernel/config-BASE if it has one, and
# kernel/config-debug for --debug (config_fragments in lib.sh).
#   --unpatched  build the pristine base, without its series (for comparisons)
# The build is reused when its key (base version, series, config fragments, toolchain)
# is unchanged; otherwise kbuild rebuilds incrementally in the same directory, with ccache.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=default
variant=patched
while [ $# -gt 0 ]; do
	case "$1" in
	--base) select_base "${2:-}"; shift ;;
	--debug) flavour=debug ;;
	--unpatched) variant=unpatched ;;
	*) echo "usage: $0 [--base NAME] [--debug] [--unpatched]" >&2; exit 2 ;;
	esac
	shift
done

mapfile -t frags < <(config_fragments $flavour)

if [ $variant = patched ]; then
	tree=$("$TOP/scripts/prepare-source.sh")
	series=$(series_hash)
else
	tree=$("$TOP/scripts/prepare-source.sh" --unpatched)
	series=none
fi

out=$CACHE/build/$BASE-$variant-$flavour
name=$BASE-$variant-$flavour
kbuild_env
key=$({
	echo "$(base_version) $series KCFLAGS=$KCFLAGS"
	cat "${frags[@]}"
	gcc --version | head -n 1
	pahole --version
} | sha256sum | cut -c1-16)

mkdir -p "$out"
exec 8>"$out/.lock"
flock 8
# Hold the source tree shared while compiling: prepare-source.sh takes it exclusively
# before re-patching, so another run's series change cannot swap files under kbuild.
exec 9>"$CACHE/.source-$BASE.lock"
flock -s 9
if [ $variant = patched ] && [ "$(cat "$tree/.bpfrec-applied" 2>/dev/null)" != "$series" ]; then
	die "patches/series changed while this build waited; run it again"
fi
if [ -f "$out/.bpfrec-key" ] && [ "$(cat "$out/.bpfrec-key")" = "$key" ] &&
   [ -f "$out/arch/x86/boot/bzImage" ]; then
	stage "kernel $name: cached ($key)" >&2
	echo "$out"
	exit 0
fi
rm -f "$out/.bpfrec-key"

export KBUILD_BUILD_TIMESTAMP="@0" KBUILD_BUILD_USER=bpfrec KBUILD_BUILD_HOST=bpfrec
kmake=(make -C "$tree" O="$out" CC="ccache gcc" -j"$(nproc)")

stage "kernel $name: configuring (tinyconfig + ${frags[*]##*/})" >&2
log=$out/build.log
logged "$log" "${kmake[@]}" tinyconfig
logged "$log.merge" "$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}"
logged "$log" "${kmake[@]}" olddefconfig

# A fragment line that did not survive olddefconfig means an unmet dependency: fail loudly
# rather than boot a kernel without the feature the tests rely on.
missing=$(grep -hE '^CONFIG_[A-Z0-9_]+=[^n]' "${frags[@]}" | while read -r line; do
	grep -qxF "$line" "$out/.config" || echo "$line"
done)
[ -z "$missing" ] || die "config options not set after olddefconfig (unmet dependencies?): $(echo $missing)"

stage "kernel $name: compiling in $out (log: $log)" >&2
objects() { echo "  ... $(find "$out" -name '*.o' | wc -l) objects"; }
ticker 60 objects
ticker=$!
# Under errexit a failing command in an EXIT trap becomes the script's status: a ticker
# already stopped must not turn a good build into a silent failure.
trap 'kill $ticker 2>/dev/null || true' EXIT
# Wall time depends on what else the machine runs; CPU time (user + system) does not,
# and is what the build costs: both are printed.
# modules: Module.symvers and the module linker script, which the selftests' test module
# is built out of tree against (and the few modules tinyconfig leaves as =m).
logged "$log" /usr/bin/time -f '%e %U %S' -o "$out/.build-time" nice "${kmake[@]}" bzImage modules
logged "$log.headers" "${kmake[@]}" headers_install
kill $ticker
trap - EXIT
echo "$key" >"$out/.bpfrec-key"
read -r wall user sys <"$out/.build-time"
stage "kernel $name: built $(du -h "$out/arch/x86/boot/bzImage" | cut -f1) bzImage in ${wall%.*} s, CPU $(echo "$user + $sys" | bc | cut -d. -f1) s" >&2
echo "$out"
