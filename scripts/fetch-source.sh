#!/bin/bash
# Print the path of a base's pristine source tarball (Debian's linux-source-X package).
# A base whose SUITE in kernel/bases is `-` comes from the machine's own apt sources, and
# scripts/deps.sh installs it: its tarball is /usr/src/PACKAGE.tar.xz. A base from another
# suite (7.2 from unstable, `sid`) is fetched into the cache, without touching the
# machine's apt configuration:
#  - a sources list of our own under $CACHE/apt-SUITE names the suite, signed by the
#    Debian archive keyring; `apt-get update` with that list, our own lists folder and our
#    own package cache fetches its indexes and checks their signatures;
#  - `apt-get download` fetches the package and checks it against the signed index, as
#    apt does for any install; its SHA256 is then compared once more with the index;
#  - `dpkg -x` unpacks it under $CACHE/debian/PACKAGE/VERSION, marked ready at the end.
# Once a version is unpacked, it is used without asking the network again (a warm make
# check works offline); --refresh asks the suite for its current version.
#   usage: scripts/fetch-source.sh [--base NAME] [--refresh]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

refresh=0
while [ $# -gt 0 ]; do
	case "$1" in
	--base) select_base "${2:-}"; shift ;;
	--refresh) refresh=1 ;;
	*) echo "usage: $0 [--base NAME] [--refresh]" >&2; exit 2 ;;
	esac
	shift
done

if [ "$BASE_SUITE" = - ]; then
	tarball=/usr/src/$BASE_PACKAGE.tar.xz
	[ -f "$tarball" ] || die "$tarball is missing; run scripts/deps.sh"
	echo "$tarball"
	exit 0
fi

store=$CACHE/debian/$BASE_PACKAGE
mkdir -p "$store"
exec 9>"$store/.lock"
flock 9

# The unpacked version in use, if any: its tarball is the answer unless asked to refresh.
if [ $refresh = 0 ] && [ -f "$store/current" ]; then
	ver=$(cat "$store/current")
	if [ -f "$store/$ver/.bpfrec-ready" ]; then
		echo "$store/$ver/usr/src/$BASE_PACKAGE.tar.xz"
		exit 0
	fi
fi

apt_dir=$CACHE/apt-$BASE_SUITE
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $BASE_SUITE main" \
	>"$apt_dir/sources.list"
apt=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o Dir::Etc::sourceparts=-
	-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
	-q)
log=$CACHE/logs/fetch-$BASE_PACKAGE.$$.log
stage "fetching the $BASE_SUITE index of deb.debian.org (apt sources of our own: $apt_dir)" >&2
logged "$log" apt-get "${apt[@]}" update

full=$(apt-cache "${apt[@]}" show --no-all-versions "$BASE_PACKAGE" 2>/dev/null |
	sed -n 's/^Version: //p')
[ -n "$full" ] || die "$BASE_PACKAGE is not in Debian $BASE_SUITE"
sha=$(apt-cache "${apt[@]}" show --no-all-versions "$BASE_PACKAGE" | sed -n 's/^SHA256: //p')
ver=${full%%-*}
[ "$ver" = "$BASE_PINNED" ] ||
	echo "warning: kernel/bases pins $BASE_PINNED but $BASE_SUITE has $BASE_PACKAGE $full; using $ver" >&2

if [ ! -f "$store/$ver/.bpfrec-ready" ]; then
	# apt-get download writes into the current folder, as the unprivileged _apt user
	# when it can: the folder is theirs, as apt's own partial folders are.
	dl=$apt_dir/download
	rm -rf "$dl"
	mkdir -p "$dl"
	id _apt >/dev/null 2>&1 && chown _apt "$dl"
	stage "downloading $BASE_PACKAGE $full (about 160 MB) from Debian $BASE_SUITE" >&2
	logged "$log" bash -c 'cd "$1" && shift && apt-get "$@"' _ "$dl" "${apt[@]}" \
		download "$BASE_PACKAGE=$full"
	deb=$(find "$dl" -name "${BASE_PACKAGE}_*.deb" | head -n 1)
	[ -n "$deb" ] || die "apt-get download left no .deb in $dl (log: $log)"
	[ "$(sha256sum <"$deb" | cut -d' ' -f1)" = "$sha" ] ||
		die "$deb does not match the SHA256 of the signed $BASE_SUITE index"
	stage "unpacking $(basename "$deb") into $store/$ver" >&2
	rm -rf "$store/$ver"
	dpkg -x "$deb" "$store/$ver"
	[ -f "$store/$ver/usr/src/$BASE_PACKAGE.tar.xz" ] ||
		die "$(basename "$deb") holds no usr/src/$BASE_PACKAGE.tar.xz"
	echo "$full" >"$store/$ver/.bpfrec-ready"
	rm -rf "$dl"
fi
echo "$ver" >"$store/current"
echo "$store/$ver/usr/src/$BASE_PACKAGE.tar.xz"
