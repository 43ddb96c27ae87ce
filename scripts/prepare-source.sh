#!/bin/bash
# Prepare a kernel tree with a base's series applied, in the cache outside the clone.
# Prints the path of the tree. The pristine base is a git repository extracted once from
# Debian's tarball; the patched tree is a worktree of it, marked ready only once the whole
# series applied, so a failed apply is never reused: the next run starts from the base.
#   usage: scripts/prepare-source.sh [--base NAME] [--unpatched]
#   --base NAME  a base of kernel/bases (default: $BPFREC_BASE, else the primary)
#   --unpatched  print the pristine base tree instead
set -euo pipefail
. "$(dirname "$0")/lib.sh"

unpatched=0
while [ $# -gt 0 ]; do
	case "$1" in
	--base) select_base "${2:-}"; shift ;;
	--unpatched) unpatched=1 ;;
	*) echo "usage: $0 [--base NAME] [--unpatched]" >&2; exit 2 ;;
	esac
	shift
done

ver=$(base_version)
[ "$ver" = "$BASE_PINNED" ] ||
	echo "warning: kernel/bases pins $BASE_PINNED but $BASE_PACKAGE is $ver; using $ver" >&2
tarball=$("$TOP/scripts/fetch-source.sh")

base=$CACHE/linux-$ver
# The pristine base never changes once ready: reading it needs no lock, so a series
# check does not wait for a build of the same base.
if [ $unpatched = 1 ] && [ -f "$base/.bpfrec-ready" ]; then
	echo "$base"
	exit 0
fi
# The patched tree as it should be is only read: a shared lock, which kernel builds of
# this base also hold while they compile, so that it does not wait for them. Anything to
# write takes the lock exclusively (flock drops the shared one first, so two such runs
# cannot deadlock) and looks again.
want=$(series_hash)
tree=$CACHE/src-patched-$BASE
exec 9>"$CACHE/.source-$BASE.lock"
if [ $unpatched = 0 ]; then
	flock -s 9
	if [ -f "$base/.bpfrec-ready" ] && [ "$(cat "$tree/.bpfrec-applied" 2>/dev/null)" = "$want" ]; then
		echo "$tree"
		exit 0
	fi
fi
flock 9

if [ ! -f "$base/.bpfrec-ready" ]; then
	stage "extracting $tarball to $base" >&2
	rm -rf "$base" "$base.tmp"
	mkdir -p "$base.tmp"
	tar -C "$base.tmp" --strip-components=1 -xf "$tarball"
	stage "committing the pristine tree (git base for the series)" >&2
	(
		cd "$base.tmp"
		git init -q
		git config user.name bpfrec
		git config user.email bpfrec@localhost
		git config gc.auto 0
		git add -A -f  # Debian's .gitignore ignores everything at the top level
		git commit -q -m "Debian $BASE_PACKAGE $ver"
		git tag base
	)
	mv "$base.tmp" "$base"
	touch "$base/.bpfrec-ready"
fi

if [ $unpatched = 1 ]; then
	echo "$base"
	exit 0
fi

# One stable patched worktree, moved to the new patched commit when the series changes.
# The commit is made first, without a work tree (the patches applied to a temporary index
# of the base, one commit each), and the worktree then moves from its old commit to it:
# git rewrites only the files whose content differs, so a change to the selftests patch
# leaves every kernel source's time stamp alone and kbuild finds nothing to recompile.
# (Resetting the worktree to the base and applying the series there touched every file
# the series patches, bpf.h and perf_event.h among them: nearly a whole kernel again.)
if [ -f "$tree/.bpfrec-applied" ] && [ "$(cat "$tree/.bpfrec-applied")" = "$want" ]; then
	echo "$tree"
	exit 0
fi

rm -f "$tree/.bpfrec-applied"
index=$(mktemp)
trap 'rm -f "$index"' EXIT
export GIT_INDEX_FILE=$index
git -C "$base" read-tree base
commit=$(git -C "$base" rev-parse base)
n=0
for p in $(prereq_patches) $(series_patches); do
	n=$((n + 1))
	if ! out=$(git -C "$base" apply --cached --whitespace=nowarn "$p" 2>&1); then
		echo "$out" >&2
		die "patch $n ($(basename "$p")) does not apply to linux $ver: see the lines above"
	fi
	# the Subject: header, with its folded continuation lines, without [PATCH ...]
	subject=$(awk '/^Subject: / { s = $0; while ((getline l) > 0 && l ~ /^[ \t]/) s = s l
		print s; exit }' "$p" | sed 's/^Subject: \(\[PATCH[^]]*\] \)\{0,1\}//')
	commit=$(git -C "$base" commit-tree "$(git -C "$base" write-tree)" -p "$commit" \
		-m "${subject:-$(basename "$p")}")
done
unset GIT_INDEX_FILE
reset_worktree "$base" "$tree" "$commit"
stage "applied $n patch(es) to linux $ver" >&2
echo "$want" >"$tree/.bpfrec-applied"
echo "$tree"
