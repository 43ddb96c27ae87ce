#!/bin/bash
# Prepare a kernel tree with patches/series applied, in the cache outside the clone.
# Prints the path of the tree. The pristine base is a git repository extracted once from
# Debian's tarball; the patched tree is a worktree of it, marked ready only once the whole
# series applied, so a failed apply is never reused: the next run starts from the base.
#   usage: scripts/prepare-source.sh [--unpatched]
#   --unpatched prints the pristine base tree instead.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

unpatched=0
[ "${1:-}" = "--unpatched" ] && unpatched=1

ver=$(base_version)
. "$TOP/kernel/base"
[ "$ver" = "$version" ] ||
	echo "warning: kernel/base expects $version but linux-source-6.1 is $ver; using $ver" >&2

base=$CACHE/linux-$ver
mkdir -p "$CACHE"
exec 9>"$CACHE/.source.lock"
flock 9

if [ ! -f "$base/.bpfrec-ready" ]; then
	stage "extracting /usr/src/linux-source-6.1.tar.xz to $base" >&2
	rm -rf "$base" "$base.tmp"
	mkdir -p "$base.tmp"
	tar -C "$base.tmp" --strip-components=1 -xf /usr/src/linux-source-6.1.tar.xz
	stage "committing the pristine tree (git base for the series)" >&2
	(
		cd "$base.tmp"
		git init -q
		git config user.name bpfrec
		git config user.email bpfrec@localhost
		git config gc.auto 0
		git add -A -f  # Debian's .gitignore ignores everything at the top level
		git commit -q -m "Debian linux-source-6.1 $ver"
		git tag base
	)
	mv "$base.tmp" "$base"
	touch "$base/.bpfrec-ready"
fi

if [ $unpatched = 1 ]; then
	echo "$base"
	exit 0
fi

# One stable patched worktree, reset to the base and re-patched when the series changes:
# git only rewrites the files that differ, so kbuild rebuilds incrementally.
want=$(series_hash)
tree=$CACHE/src-patched
if [ -f "$tree/.bpfrec-applied" ] && [ "$(cat "$tree/.bpfrec-applied")" = "$want" ]; then
	echo "$tree"
	exit 0
fi

if [ ! -e "$tree/.git" ]; then
	rm -rf "$tree"
	git -C "$base" worktree prune
	git -C "$base" worktree add -q --detach "$tree" base
fi
rm -f "$tree/.bpfrec-applied"
git -C "$tree" am --abort >/dev/null 2>&1 || true
git -C "$tree" reset -q --hard base
git -C "$tree" clean -q -fdx
n=0
for p in $(series_patches); do
	n=$((n + 1))
	if ! out=$(git -C "$tree" am -q --whitespace=nowarn "$p" 2>&1); then
		echo "$out" >&2
		git -C "$tree" am --abort >/dev/null 2>&1 || true
		die "patch $n ($(basename "$p")) does not apply to linux $ver: see the lines above"
	fi
done
stage "applied $n patch(es) to linux $ver" >&2
echo "$want" >"$tree/.bpfrec-applied"
echo "$tree"
