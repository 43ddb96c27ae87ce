# Shared helpers for the scripts: cache paths, stage lines, logged commands.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${BPFREC_CACHE:-/var/cache/bpfrec}
T0=${T0:-$(date +%s)}
export T0

# Every script may be the first to run on a new machine: the cache and its logs folder
# exist before anything writes there.
if ! mkdir -p "$CACHE/logs" 2>/dev/null; then
	echo "error: cannot create the cache $CACHE; set BPFREC_CACHE to a writable folder" >&2
	exit 1
fi

# stage NAME: print a progress line with the time elapsed since the script started.
stage() {
	printf '[%4ds] %s\n' $(($(date +%s) - T0)) "$*"
}

# ticker SECONDS CMD...: in the background, a stage line with CMD's output every
# SECONDS, on stderr, until killed ($! is its pid). It drops the caller's other open
# files first: a lock the caller holds, or the pipe of a `$(...)` around the caller,
# would otherwise stay held by the ticker's sleep after the caller ended, and keep
# whoever waits on them waiting up to SECONDS (48 s after a kernel build, measured).
ticker() {
	(
		local secs=$1 fd nap
		shift
		for fd in /proc/$BASHPID/fd/*; do
			fd=${fd##*/}
			[ "$fd" -gt 2 ] && eval "exec $fd>&-"
		done
		exec >&2
		trap '[ -n "$nap" ] && kill "$nap" 2>/dev/null; exit 0' TERM
		while :; do
			sleep "$secs" &
			nap=$!
			wait "$nap" || exit 0
			stage "$("$@")"
		done
	) &
}

# watch_stall LOG SECONDS TAG FLAG [POLL]: in the background ($! is its pid), stop the
# QEMU started with "-name TAG" once LOG has not grown for SECONDS, and write to FLAG
# how long LOG was silent. LOG is looked at every POLL seconds (default 10); the time is
# read from the clock, not counted in sleeps, which a loaded machine makes longer. Like
# ticker, it drops the caller's other open files first, so that it holds no pipe of
# whoever waits for the caller.
watch_stall() {
	(
		local log=$1 stall=$2 tag=$3 flag=$4 poll=${5:-10} fd nap size last=-1 since=$SECONDS
		for fd in /proc/$BASHPID/fd/*; do
			fd=${fd##*/}
			[ "$fd" -gt 2 ] && eval "exec $fd>&-"
		done
		exec >/dev/null 2>&1
		trap '[ -n "$nap" ] && kill "$nap" 2>/dev/null; exit 0' TERM
		while :; do
			sleep "$poll" &
			nap=$!
			wait "$nap" || exit 0
			size=$(stat -c %s "$log" 2>/dev/null || echo 0)
			if [ "$size" != "$last" ]; then
				last=$size
				since=$SECONDS
			elif [ $((SECONDS - since)) -ge "$stall" ]; then
				echo $((SECONDS - since)) >"$flag"
				pkill -TERM -f "^qemu-system-x86_64 .*-name $tag " || true
				exit 0
			fi
		done
	) &
}

die() {
	echo "error: $*" >&2
	exit 1
}

# prune_logs: keep the 60 newest logs under $CACHE/logs; every run writes its own.
prune_logs() {
	find "$CACHE/logs" -name '*.log' -printf '%T@ %p\n' | sort -rn | tail -n +61 |
		cut -d' ' -f2- | xargs -r rm -f
}

# logged LOG CMD...: run CMD with its output in LOG; on failure show the tail and fail.
logged() {
	local log=$1
	shift
	if ! "$@" >"$log" 2>&1; then
		echo "---- last lines of $log ----" >&2
		tail -n 40 "$log" >&2
		die "'$*' failed; full log: $log"
	fi
}

# kbuild_env: what every kernel build of ours shares.
# - ccache in depend mode: a miss compiles once, keyed by the dependencies gcc lists
#   (-MMD), rather than preprocessing first (about 8 % less CPU for a cold build).
# - KCFLAGS=-fno-var-tracking, as DEBUG_INFO_REDUCED has: no location lists for
#   variables. BTF, which is why the kernels carry debug info, takes only types and
#   prototypes; gcc spends 15 to 18 % less CPU on the largest files.
kbuild_env() {
	export CCACHE_DIR=$CACHE/ccache CCACHE_DEPEND=1 KCFLAGS=-fno-var-tracking
}

# kernel_tests FILE KERNEL: the lines "TARGET:TEST REASON" of FILE (selftests/
# expected-failures, selftests/not-run) whose KERNEL pattern matches KERNEL, which is
# BASE-VARIANT (6.12-patched, 6.1-unpatched).
kernel_tests() {
	grep -vE '^(#|$)' "$1" | while read -r where test reason; do
		# shellcheck disable=SC2053  # $where is a pattern
		[[ $2 == $where ]] && echo "$test $reason"
	done || true
}

# reset_worktree REPO DIR REV: make DIR a worktree of REPO at REV and nothing else (no
# half-applied patch, no untracked file). A worktree kept between runs is reset rather
# than made anew: git then rewrites only the files that differ from REV.
reset_worktree() {
	if ! git -C "$2" rev-parse --git-dir >/dev/null 2>&1; then
		rm -rf "$2"
		git -C "$1" worktree prune
		git -C "$1" worktree add -q --detach "$2" "$3"
	fi
	git -C "$2" am --abort >/dev/null 2>&1 || true
	git -C "$2" reset -q --hard "$3"
	git -C "$2" clean -q -fdx
}

# The base names of kernel/bases, the primary first.
bases() {
	awk '!/^(#|$)/ { print $1 }' "$TOP/kernel/bases"
}

# base_guests NAME: the guest flavours make check boots for base NAME, one a line
# (none for `-`).
base_guests() {
	awk -v n="$1" '!/^(#|$)/ && $1 == n { print ($6 == "" ? "default" : $6) }' \
		"$TOP/kernel/bases" | tr ',' '\n' | grep -vx -- '-' || true
}

# select_base [NAME]: make NAME (default: $BPFREC_BASE, else the primary) the base every
# following helper and child script works on. Sets BASE, BASE_PACKAGE, BASE_PINNED,
# BASE_SERIES (the series folder, absolute), BASE_SUITE (`-`: the machine's apt
# sources; else the Debian suite scripts/fetch-source.sh fetches the package from) and
# BASE_GUESTS (the guest flavours make check boots, comma-separated, or `-`).
select_base() {
	local want=${1:-${BPFREC_BASE:-}} line
	[ -n "$want" ] || want=$(bases | head -n 1)
	line=$(awk -v n="$want" '!/^(#|$)/ && $1 == n' "$TOP/kernel/bases")
	[ -n "$line" ] || die "unknown kernel base '$want'; kernel/bases lists: $(bases | tr '\n' ' ')"
	read -r BASE BASE_PACKAGE BASE_PINNED BASE_SERIES BASE_SUITE BASE_GUESTS <<<"$line"
	BASE_SUITE=${BASE_SUITE:--}
	BASE_GUESTS=${BASE_GUESTS:-default}
	BASE_SERIES=$TOP/$BASE_SERIES
	export BPFREC_BASE=$BASE
}

# config_fragments FLAVOUR: the config fragments merged onto tinyconfig for a guest kernel
# of the base, as paths: kernel/config; kernel/config-BASE when the base has one, for
# options that only newer bases have (netkit came in 6.7, so 6.1 has none); and
# kernel/config-debug for the debug flavour.
config_fragments() {
	echo "$TOP/kernel/config"
	[ ! -f "$TOP/kernel/config-$BASE" ] || echo "$TOP/kernel/config-$BASE"
	[ "$1" != debug ] || echo "$TOP/kernel/config-debug"
}

# The version of the base's source package in use, e.g. 6.1.192: the installed one, or
# the one scripts/fetch-source.sh unpacked into the cache (fetched first if none is).
base_version() {
	local v
	if [ "$BASE_SUITE" != - ]; then
		v=$CACHE/debian/$BASE_PACKAGE/current
		[ -f "$v" ] || "$TOP/scripts/fetch-source.sh" >/dev/null ||
			die "cannot fetch $BASE_PACKAGE from Debian $BASE_SUITE"
		cat "$v"
		return
	fi
	v=$(dpkg-query -W -f='${Version}' "$BASE_PACKAGE" 2>/dev/null) ||
		die "$BASE_PACKAGE is not installed; run scripts/deps.sh"
	echo "${v%%-*}"
}

# list_patches DIR: the patches listed in DIR/series, as paths, in order.
list_patches() {
	local p
	[ -f "$1/series" ] || return 0
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		echo "$1/$p"
	done <"$1/series"
}

# The patches listed in the base's series file, as paths, in order.
series_patches() {
	list_patches "$BASE_SERIES"
}

# The base's prerequisite fixes (SERIES/prereq), as paths, in order: fixes of bugs in the
# base itself that the series' tests run into, each sent to its own maintainers. They are
# applied before the series, so the patched kernel has them; --unpatched is the pristine
# base without them.
prereq_patches() {
	list_patches "$BASE_SERIES/prereq"
}

# A short hash of the series content (the base version and the patch files, in order).
series_hash() {
	local p
	{
		base_version
		for p in $(prereq_patches) $(series_patches); do
			sha256sum <"$p"
		done
	} | sha256sum | cut -c1-12
}

select_base

# tree_state DIR: the git status of the work tree at DIR, one line a changed, new or
# deleted file, ignored files left out. make check compares it before and after a run.
tree_state() {
	git -C "$1" status --porcelain --untracked-files=all 2>/dev/null | sort
}

# tree_leftovers DIR BEFORE: the lines of DIR's git status that were not in BEFORE (an
# earlier tree_state): the files a run created, changed or deleted and did not clean up.
tree_leftovers() {
	comm -13 <(printf '%s\n' "$2" | sed '/^$/d') <(tree_state "$1")
}
