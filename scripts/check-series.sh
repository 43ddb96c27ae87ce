#!/bin/bash
# Check a base's kernel patch series (kernel/bases names each base's series folder):
#  - its series file lists every patch file once, in order, and the cover letter exists;
#    the same for its prerequisite fixes (SERIES/prereq), if it has any;
#  - every patch applies with git am, in order, to a worktree reset to the pristine base,
#    the prerequisite fixes first;
#  - the tree's scripts/checkpatch.pl --strict reports 0 errors and 0 warnings per patch
#    (CHECK lines are printed and counted, and fail the check too);
#  - include/uapi/linux/perf_event.h of this repository is byte-identical to the header of
#    the fully patched primary base (the first of kernel/bases); a backport series changes
#    its base's header by the same lines as the primary series, but for the bit fields of
#    perf_event_attr and their alignment (an older base lacks the fields mainline added
#    before bpf_obj_event and reserves their bits instead), and bpf_obj_event is the same
#    bit of perf_event_attr on every base (a compiled probe of both headers says which);
#  - every kselftest target of selftests/ is in the series, byte-identical, in the tree's
#    tools/testing/selftests (the series carries its tests; selftests/ is their copy);
#  - the perf tools follow-up of the base's series (SERIES/perf-tools, sent to the perf
#    tools tree separately), when it has one, applies on top of the series,
#    checkpatch --strict clean;
#  - with --build: the kernel (tinyconfig + kernel/config + kernel/config-BASE) builds
#    after every patch, i.e. the series is bisectable. Builds are incremental in one
#    directory, with ccache.
#   usage: scripts/check-series.sh [--base NAME] [--build]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

build=0
while [ $# -gt 0 ]; do
	case "$1" in
	--base) select_base "${2:-}"; shift ;;
	--build) build=1 ;;
	*) echo "usage: $0 [--base NAME] [--build]" >&2; exit 2 ;;
	esac
	shift
done
sdir=${BASE_SERIES#"$TOP"/}

base=$("$TOP/scripts/prepare-source.sh" --unpatched)
work=$CACHE/check-series-$BASE
wt=$work/tree
mkdir -p "$work"
exec 7>"$work/.lock"
flock 7

fail=0
problem() {
	echo "FAIL: $*" >&2
	fail=1
}

# The series file and the patch files agree, and so do those of the prerequisite fixes.
[ -f "$BASE_SERIES/0000-cover-letter.patch" ] || problem "$sdir/0000-cover-letter.patch is missing"
# check_listed DIR LIST: DIR's *.patch files (but a cover letter) are LIST's, each once.
check_listed() {
	local dir=${1#"$TOP"/} listed present dups
	listed=$(echo "$2" | sed '/^$/d' | xargs -r -n1 basename | sort)
	present=$(cd "$1" 2>/dev/null && ls -- *.patch 2>/dev/null |
		grep -vx '0000-cover-letter.patch' | sort || true)
	[ "$listed" = "$present" ] ||
		problem "$dir/series and $dir/*.patch differ: $(diff <(echo "$listed") <(echo "$present") | grep '^[<>]' | tr '\n' ' ')"
	dups=$(echo "$2" | sed '/^$/d' | sort | uniq -d)
	[ -z "$dups" ] || problem "listed twice in $dir/series: $dups"
}
check_listed "$BASE_SERIES" "$(series_patches)"
[ ! -d "$BASE_SERIES/prereq" ] || check_listed "$BASE_SERIES/prereq" "$(prereq_patches)"

# One worktree kept between runs and reset to the pristine base: a reset rewrites only the
# files the last run patched, where a new worktree would check out the whole tree.
reset_worktree "$base" "$wt" base

kbuild() {
	local out=$work/build
	local log=$out/build.log
	local kmake=(nice make -C "$wt" O="$out" CC="ccache gcc" -j"$(nproc)")

	kbuild_env
	mkdir -p "$out"
	if [ ! -f "$out/.config" ]; then
		logged "$log" "${kmake[@]}" tinyconfig
		logged "$log.merge" "$wt/scripts/kconfig/merge_config.sh" -m -O "$out" \
			"$out/.config" $(config_fragments default)
	fi
	logged "$log" "${kmake[@]}" olddefconfig
	# W=1 would flag pre-existing warnings of the base; new warnings in the files the
	# series touches are caught by grepping the log of this incremental build.
	logged "$log" "${kmake[@]}" bzImage
	if [ -n "$touched" ] && grep -E "(^|/)($touched):[0-9]+:[0-9]+: warning" "$log"; then
		return 1
	fi
}

# The kernel's C files the series touches, as an extended regex of their names.
touched=$(series_patches | xargs -r sed -n 's|^diff --git a/\([^ ]*\.c\) .*|\1|p' |
	grep -v '^tools/' | sort -u | sed 's/[.]/\\./g' | paste -sd '|' || true)

if [ $build = 1 ]; then
	stage "building the unpatched base"
	kbuild || die "the unpatched base does not build cleanly"
fi

# apply_checked PATCH LABEL IGNORE: git am PATCH onto the tree, then checkpatch --strict
# it (ignoring the checkpatch types in IGNORE), with one stage line under LABEL. Any error,
# warning or check is a problem; returns 1 when the patch does not apply.
apply_checked() {
	local p=$1 label=$2 ignore=$3 out res summary
	if ! out=$(git -C "$wt" am -q --whitespace=nowarn "$p" 2>&1); then
		echo "$out" >&2
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		problem "$label does not apply"
		return 1
	fi
	res=$(cd "$wt" && ./scripts/checkpatch.pl --strict --quiet --show-types \
		--ignore "$ignore" "$p" 2>&1 || true)
	summary=$(echo "$res" | grep -E '^total: ' || echo "total: 0 errors, 0 warnings, 0 checks")
	stage "$label: checkpatch --strict ${summary#total: }"
	if [ "$summary" != "total: 0 errors, 0 warnings, 0 checks" ]; then
		echo "$res" >&2
		problem "checkpatch --strict is not clean on $(basename "$p")"
	fi
}

# The prerequisite fixes first, checked as the series is: they are sent upstream too.
n=0
for p in $(prereq_patches); do
	n=$((n + 1))
	apply_checked "$p" "prereq $n $(basename "$p")" UNKNOWN_COMMIT_ID || break
done

n=0
for p in $(series_patches); do
	n=$((n + 1))
	name=$(basename "$p")
	# The base is a tarball without history: the commits named by Fixes: tags (looked
	# up in mainline) cannot be found in it.
	apply_checked "$p" "patch $n $name" UNKNOWN_COMMIT_ID || break
	if [ $build = 1 ]; then
		stage "patch $n $name: building"
		kbuild || problem "the kernel does not build (or warns) after $name"
	fi
done

# changed_lines OLD NEW: the lines a diff from OLD to NEW removes and adds, in order,
# with runs of blanks as one space; the bit fields of perf_event_attr (bpf_obj_event and
# the reserved bits around it) are left out: attr_bit compares what they mean. The diff
# is the minimal one: diff's faster default can align the same change differently in
# two bases' headers, which differ elsewhere.
changed_lines() {
	diff --minimal -U0 "$1" "$2" | grep -vE '^(\+\+\+|---) ' | grep -E '^[-+]' |
		sed -E 's/[[:space:]]+/ /g' |
		grep -vE '^[-+] (__reserved_[a-z0-9_]+|bpf_obj_event) *:' || true
}

# attr_bit HEADER: the bit of perf_event_attr that bpf_obj_event sets, with HEADER as
# <linux/perf_event.h> (compiled and run on the host).
attr_bit() {
	local d
	d=$(mktemp -d)
	mkdir "$d/linux"
	cp "$1" "$d/linux/perf_event.h"
	cat >"$d/bit.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>
int main(void)
{
	struct perf_event_attr a;
	unsigned char *p = (unsigned char *)&a;
	unsigned int i;

	memset(&a, 0, sizeof(a));
	a.bpf_obj_event = 1;
	for (i = 0; i < sizeof(a) * 8; i++)
		if (p[i / 8] & (1u << (i % 8)))
			printf("%u\n", i);
	return 0;
}
C
	gcc -I"$d" -o "$d/bit" "$d/bit.c" && "$d/bit"
	rm -rf "$d"
}

uapi=include/uapi/linux/perf_event.h
primary=$(bases | head -n 1)
if [ $fail = 0 ]; then
	if [ $n = 0 ]; then
		stage "empty series"
	elif [ "$BASE" = "$primary" ]; then
		if cmp -s "$wt/$uapi" "$TOP/$uapi"; then
			stage "$uapi matches the patched tree"
		else
			diff -u "$wt/$uapi" "$TOP/$uapi" >&2 || true
			problem "$uapi drifted from the series (diff above: tree -> repo)"
		fi
	else
		pbase=$("$TOP/scripts/prepare-source.sh" --base "$primary" --unpatched)
		if diff -u <(changed_lines <(git -C "$pbase" show "base:$uapi") "$TOP/$uapi") \
			<(changed_lines <(git -C "$wt" show "base:$uapi") "$wt/$uapi") >&2; then
			stage "$uapi: the backport changes it as the $primary series does"
		else
			problem "the $BASE series changes $uapi differently from the $primary series (diff above: $primary -> $BASE)"
		fi
		pbit=$(attr_bit "$TOP/$uapi")
		bit=$(attr_bit "$wt/$uapi")
		if [ -n "$bit" ] && [ "$bit" = "$pbit" ]; then
			stage "$uapi: bpf_obj_event is bit $bit of perf_event_attr, as on $primary"
		else
			problem "bpf_obj_event is bit '$bit' of perf_event_attr on $BASE but '$pbit' on $primary"
		fi
	fi
fi

if [ $fail = 0 ] && [ $n -gt 0 ]; then
	for d in "$TOP"/selftests/*/; do
		t=$(basename "$d")
		if diff -r "$d" "$wt/tools/testing/selftests/$t" >&2; then
			stage "selftests/$t matches the series' tools/testing/selftests/$t"
		else
			problem "selftests/$t differs from the series' copy (diff above: repo -> tree)"
		fi
	done
fi

# The perf tools follow-up, checked with four checkpatch types left out, each for a reason
# that holds for every perf tools patch:
#  - BIT_MACRO: the header sync copies include/uapi/linux/perf_event.h verbatim into
#    tools/include, and checkpatch skips BIT_MACRO for include/uapi only;
#  - UNKNOWN_COMMIT_ID: the tree is a Debian release with no mainline history, so the
#    Fixes: id cannot be looked up in it (490c8cc949ec was checked by hand, from its
#    tip-bot mail of May 2019);
#  - FILE_PATH_CHANGES: new files under tools/perf, which MAINTAINERS covers already;
#  - SPDX_LICENSE_TAG: perf test takes a shell test's description from its second line,
#    so perf's shell tests carry the SPDX tag on the third, as all of them do.
tools_series=$BASE_SERIES/perf-tools/series
if [ $fail = 0 ] && [ -f "$tools_series" ]; then
	for name in $(grep -v '^#' "$tools_series"); do
		apply_checked "$BASE_SERIES/perf-tools/$name" "perf tools $name on top of the series" \
			BIT_MACRO,UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES,SPDX_LICENSE_TAG || break
	done
fi

[ $fail = 0 ] || die "series check failed"
stage "series $BASE OK: $n patches apply, checkpatch --strict clean$([ $build = 1 ] && echo ', bisectable build')"
