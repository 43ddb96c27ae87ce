#!/bin/bash
# Try to build the BPF selftests runner test_progs (tools/testing/selftests/bpf) of the
# patched 7.2 tree with Debian 12's own toolchain: clang-16, llvm-16 and lld-16 from
# bookworm, the host's pahole, and the vmlinux of scripts/build-kernel.sh as the BTF that
# vmlinux.h is generated from. It answers whether kernel tests could live in test_progs
# and run there with `test_progs -t NAME`; it builds no kernel itself.
#   usage: scripts/try-test-progs.sh [--strict]
#   --strict  BPF_STRICT_BUILD=1, upstream's default: any BPF object that fails fails
#             the build. Without it the build is permissive (BPF_STRICT_BUILD=0):
#             objects that fail are left out, and test_progs is linked from the rest.
# The tree is copied to $CACHE/test-progs-7.2/src and built there; the full make output
# goes to $CACHE/logs/try-test-progs-7.2.PID.log, and each BPF object that failed is
# compiled once more on its own, its errors in $CACHE/test-progs-7.2/failed/NAME.log, so
# that every error is attributed to its object and classified.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

strict=0
case "${1:-}" in
'') ;;
--strict) strict=1 ;;
*) echo "usage: $0 [--strict]" >&2; exit 2 ;;
esac

select_base 7.2
src=$CACHE/src-patched-$BASE
kbuild=$CACHE/build/$BASE-patched-default
work=$CACHE/test-progs-$BASE
tree=$work/src
bpfdir=$tree/tools/testing/selftests/bpf
log=$CACHE/logs/try-test-progs-$BASE.$$.log
mkdir -p "$work"
prune_logs

# The toolchain: clang, llc and llvm-strip 16 for the BPF objects, lld 16 for
# urandom_read and its library, and llvm-config-16 (llvm-16-dev) for test_progs' JIT
# disassembler. The host compiler (gcc) builds the userspace parts.
stage "toolchain: clang-16, llvm-16, lld-16"
if ! command -v clang-16 llc-16 llvm-strip-16 llvm-config-16 ld.lld-16 >/dev/null; then
	stage "toolchain: installing clang-16 llvm-16 lld-16 with apt-get"
	DEBIAN_FRONTEND=noninteractive logged "$work/apt.log" \
		apt-get install -y clang-16 llvm-16 llvm-16-dev lld-16
fi
stage "toolchain: $(clang-16 --version | head -n 1), pahole $(pahole --version)"

# The source: a copy of the patched tree, since the build writes into it (libarena, the
# test modules and prog_tests/tests.h are built in place). A copy of other patches is
# replaced as a whole; one of the same patches is brought up to date by rsync, which
# keeps the build's outputs so that a second run is incremental.
stage "source: copying $src to $tree"
[ -f "$src/.bpfrec-applied" ] || die "$src is not prepared; run scripts/prepare-source.sh"
exec 9>"$CACHE/.source-$BASE.lock"
flock -s 9
if [ "$(cat "$tree/.bpfrec-applied" 2>/dev/null)" != "$(cat "$src/.bpfrec-applied")" ]; then
	rm -rf "$tree"
fi
mkdir -p "$tree"
nice -n 19 rsync -a --exclude .git "$src/" "$tree/"
exec 9>&-

# The kernel: vmlinux is read for its BTF (vmlinux.h and the test modules' BTF), and
# Module.symvers for the test modules. The kernel's lock is held shared while they are
# used, so that a kernel build under way is waited for and none starts meanwhile; the
# vmlinux is copied, so that the long part of the build does not hold the lock. The copy
# keeps its time, so that the test modules are rebuilt only when the kernel was.
stage "kernel: waiting for $kbuild"
exec 8>"$kbuild/.lock"
flock -s 8
if [ ! -f "$kbuild/.bpfrec-key" ] || [ ! -f "$kbuild/vmlinux" ]; then
	die "no finished kernel build in $kbuild; run scripts/build-kernel.sh"
fi
cp -p "$kbuild/vmlinux" "$work/vmlinux"

mk=(nice -n 19 make -C "$bpfdir" -j2
	CLANG=clang-16 LLC=llc-16 LLVM_STRIP=llvm-strip-16 LLVM_CONFIG=llvm-config-16
	VMLINUX_BTF="$work/vmlinux" SKIP_DOCS=1 "BPF_STRICT_BUILD=$strict")

# Every make of this Makefile remakes the prog_tests' .d files it includes, and with them
# the skeletons and libarena/libarena.skel.h: even a make of the test modules alone
# retries every BPF object that failed before. LIBARENA_SKEL= (empty) leaves libarena
# out, as the second test_progs pass below does, so that its failure does not stop this.
noarena=(LIBARENA_SKEL=)

# The test modules (bpf_testmod.ko and the others) are built first, against the kernel
# build (with its gcc), while its lock is held. A failure here is recorded, not fatal:
# test_progs links without them and only the tests that load them fail.
stage "test modules: building against $kbuild (log: $log)"
start=$SECONDS
kmods=ok
"${mk[@]}" "${noarena[@]}" KBUILD_OUTPUT="$kbuild" bpf_testmod.ko bpf_test_no_cfi.ko \
	bpf_test_modorder_x.ko bpf_test_modorder_y.ko bpf_test_rqspinlock.ko >>"$log" 2>&1 ||
	kmods=failed
exec 8>&-
stage "test modules: $kmods in $((SECONDS - start)) s, $(find "$bpfdir" -maxdepth 1 -name '*.ko' | wc -l) of 5 built"

# test_progs as upstream builds it: libbpf, bpftool, vmlinux.h, about 1000 BPF objects
# and their skeletons, libarena, about 440 prog_tests objects, then the link. -k goes on
# past a failure, so that one run shows every failure rather than the first.
stage "test_progs as is: building (BPF_STRICT_BUILD=$strict, log: $log)"
rm -f "$bpfdir/test_progs"
start=$SECONDS
rc=0
"${mk[@]}" -k test_progs >>"$log" 2>&1 || rc=$?
stage "test_progs as is: make exited $rc after $((SECONDS - start)) s; test_progs $([ -x "$bpfdir/test_progs" ] && echo built || echo 'NOT built')"

# libarena (libarena/libarena.skel.h) is a prerequisite of test_progs.o itself, and the
# permissive build does not cover it: its sources need __BPF_FEATURE_ADDR_SPACE_CAST,
# which clang gained in 18. Only prog_tests/libarena.c uses it, so without it test_progs
# links, with the libarena test left out as any other test whose objects failed.
if [ ! -x "$bpfdir/test_progs" ] && [ $strict = 0 ]; then
	stage "test_progs without libarena: building (LIBARENA_SKEL=, log: $log)"
	start=$SECONDS
	rc=0
	"${mk[@]}" "${noarena[@]}" -k test_progs >>"$log" 2>&1 || rc=$?
	stage "test_progs without libarena: make exited $rc after $((SECONDS - start)) s"
fi

# Each BPF object that failed is compiled once more, with strict rules and one compiler
# at a time (-j1), so that its errors follow its own CLNG-BPF line and are not
# interleaved with another compiler's; they are then split into one file an object.
# A make of each object alone would retry every failed object each time (the .d files).
failed=$work/failed
rm -rf "$failed"
mkdir -p "$failed"
mapfile -t skipped < <(grep -oE '^  SKIP-BPF +[^ ]+\.bpf\.o' "$log" | awk '{ print $2 }' | sort -u)
if [ ${#skipped[@]} -gt 0 ]; then
	stage "failed BPF objects: compiling ${#skipped[@]} again one at a time for their errors"
	"${mk[@]}" "${noarena[@]}" -j1 -k BPF_STRICT_BUILD=1 "${skipped[@]/#/$bpfdir/}" \
		>"$failed/all.log" 2>&1 || true
	awk -v dir="$failed" '
	/^  CLNG-BPF / { f = dir "/" $NF; sub(/\.bpf\.o$/, ".log", f) }
	f != "" { print > f }' "$failed/all.log"
fi

# classify LOG: the classes of the errors in one object's log, one a line. The patterns
# are those the 7.2 tree gives with clang 16 and pahole 1.24:
# - compiler: a BPF feature clang 16 lacks (__BPF_FEATURE_ADDR_SPACE_CAST for arenas,
#   clang 18) or inline assembly its BPF assembler cannot parse (newer instructions).
# - kfunc: a kfunc called without a prototype. vmlinux.h declares kfuncs only when the
#   BTF has their decl tags, which pahole writes from 1.26 (decl_tag_kfuncs) on; Debian
#   12 has 1.24, so the tests' own declarations are all there is.
# - type: a kernel type, member or enum value absent from the vmlinux BTF, mostly
#   because the guest kernel's config leaves its subsystem out.
classify() {
	if [ ! -f "$1" ]; then
		echo not-compiled-again
		return
	fi
	awk '
	/error:/ { e = 1 }
	/__BPF_FEATURE|bpf_addr_space_cast feature|invalid operand for instruction|unexpected token/ { c["compiler"] = 1 }
	/(call to undeclared function|use of undeclared identifier) .(__)?bpf_[a-z0-9_]+./ { c["kfunc"] = 1; next }
	/incomplete (definition of )?type|no member named|unknown type name|use of undeclared identifier|never completed|incomplete non-array/ { c["type"] = 1 }
	END { if (!e) print "no-error"; for (k in c) print k }' "$1" | sort
}

summary=$work/summary.txt
{
	echo "# BPF objects that failed, with the classes of their errors"
	for o in "${skipped[@]}"; do
		n=${o%.bpf.o}
		echo "$n $(classify "$failed/$n.log" | paste -sd+ -)"
	done
} >"$summary"

bpf_ok=$(find "$bpfdir" -maxdepth 1 -name '*.bpf.o' | wc -l)
tests_all=$(find "$bpfdir/prog_tests" -maxdepth 1 -name '*.c' | wc -l)
tests_ok=$(find "$bpfdir" -maxdepth 1 -name '*.test.o' | wc -l)
stage "summary: BPF objects built $bpf_ok, failed ${#skipped[@]}; prog_tests objects built $tests_ok of $tests_all"
awk 'NR > 1 { n[$2]++ } END { for (c in n) printf "  %4d objects failed with %s\n", n[c], c }' "$summary" | sort -rn >&2
mapfile -t tests_skipped < <(grep -oE '^  SKIP-TEST +[^ ]+\.test\.o' "$log" | awk '{ print $2 }' | sort -u)
stage "summary: skeletons left out: $(grep -oE '^  SKIP-SKEL +[^ ]+' "$log" | sort -u | wc -l); prog_tests left out: ${#tests_skipped[@]}"
{
	echo "# prog_tests objects left out, with their first error"
	for t in "${tests_skipped[@]}"; do
		echo "${t%.test.o} $(grep -m 1 -E "prog_tests/${t%.test.o}\.c:[0-9]+:[0-9]+: (fatal )?error:" "$log" |
			sed -E 's/.*error: //')"
	done
} >>"$summary"
if [ -x "$bpfdir/test_progs" ]; then
	stage "summary: test_progs built, $("$bpfdir/test_progs" -l 2>/dev/null | wc -l) tests listed: $bpfdir/test_progs"
	stage "summary: test_progs needs $(ldd "$bpfdir/test_progs" | awk '{ print $1 }' | tr '\n' ' ')"
else
	stage "summary: test_progs NOT built; the first errors:"
	grep -m 10 -E 'error|Error' "$log" >&2 || true
fi
stage "summary: per-object classes in $summary, errors in $failed/, full log $log"
[ -x "$bpfdir/test_progs" ]
