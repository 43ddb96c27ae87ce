#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The mutation check of the unit tests: each mutant of mutants.txt is one
# small bug put into a copy of the sources, and the unit test binary it
# names must fail on it with the check it names.  That shows that the
# check fails for the reason it states, not merely that it passes.
#
# The checkout is never modified: tools/bpfrec and include/ are copied
# into a scratch directory (with tools/bpfrec/.output when it exists, so
# that what is already built is reused), and each mutant is applied to the
# copy, its binary built with the Makefile's own rule, run, and the file
# restored before the next one.  Before any mutant, every binary named is
# built and run unmutated and must pass, so that a kill is never a failure
# that was there already.
#
# A mutant is killed when its binary exits non-zero and prints a
# "not ok - " line holding the entry's fails: text.  Anything else (it
# passes, it fails other checks only, it crashes before the check) is a
# survivor.
#
#   usage: tests/mutants/run.sh [LIST]   (LIST: mutants.txt by default)
#   exit:  0 when every mutant was killed; 1 when one survived, could not
#          be applied or did not build, or an unmutated binary failed
#   env:   JOBS (parallel jobs of the unmutated build, default 2),
#          TIMEOUT (seconds a test binary may run, default 600),
#          VERBOSE=1 (the "not ok" lines of the killed mutants too)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
top=$(cd "$src/../.." && pwd)
list=${1:-$here/mutants.txt}
jobs=${JOBS:-2}
limit=${TIMEOUT:-600}
start=$SECONDS

[ -r "$list" ] || { echo "mutants: cannot read $list" >&2; exit 1; }

# --- the list ----------------------------------------------------------------
# Each entry's fields go into arrays of the same index.
files=() froms=() tos=() tests=() fails=() whys=()
declare -A cur=()

# The entry read so far is complete: store it, or say what it lacks.
flush_entry() {
	local k

	[ ${#cur[@]} -gt 0 ] || return 0
	for k in file from to test fails why; do
		if [ -z "${cur[$k]:-}" ]; then
			echo "mutants: $list: an entry without $k: (${cur[file]:-?}: ${cur[from]:-?})" >&2
			exit 1
		fi
	done
	files+=("${cur[file]}")
	froms+=("${cur[from]}")
	tos+=("${cur[to]}")
	tests+=("${cur[test]}")
	fails+=("${cur[fails]}")
	whys+=("${cur[why]}")
	cur=()
}

while IFS= read -r line || [ -n "$line" ]; do
	case "$line" in
	'#'*)
		continue
		;;
	'')
		flush_entry
		continue
		;;
	esac
	key=${line%%:*}
	case "$key" in
	file | from | to | test | fails | why)
		;;
	*)
		echo "mutants: $list: not a field: $line" >&2
		exit 1
		;;
	esac
	value=${line#"$key:"}
	# Leading blanks are no part of a value: a from: line is matched
	# without its indentation.
	value=${value#"${value%%[![:blank:]]*}"}
	cur[$key]=$value
done < "$list"
flush_entry

if [ ${#files[@]} -eq 0 ]; then
	echo "mutants: $list holds no mutant" >&2
	exit 1
fi

# --- the copy ----------------------------------------------------------------
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bpfrec-mutants.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/tools"
# cp -a keeps the times, so that make sees what .output already holds as
# up to date with the sources it was built from.
cp -a "$src" "$scratch/tools/bpfrec"
cp -a "$top/include" "$scratch/include"
copy=$scratch/tools/bpfrec
mkdir "$scratch/tmp"

# build TEST...: the unit binaries built in the copy by the Makefile's rule.
build() {
	local targets=() t

	for t in "$@"; do
		targets+=(".output/unit/$t")
	done
	nice -n 10 make -s -C "$copy" -j"$jobs" OUTPUT=.output "${targets[@]}" > "$scratch/build.log" 2>&1
}

# run_test TEST OUT: the binary run as `make unit-test` runs it, its output
# to OUT.  A mutant's output may hold raw control bytes (a missed escape):
# what is shown of it goes through cat -v.  A binary that fails keeps its
# scratch directory (tests/unit/unit.c): it does so in this one, under
# TMPDIR, removed at the end.
run_test() {
	(cd "$copy" && TMPDIR=$scratch/tmp timeout "$limit" "./.output/unit/$1") > "$2" 2>&1
}

# --- the unmutated binaries --------------------------------------------------
mapfile -t binaries < <(printf '%s\n' "${tests[@]}" | sort -u)
for t in "${binaries[@]}"; do
	if [ ! -f "$copy/tests/unit/$t.c" ]; then
		echo "mutants: no unit test $t (tests/unit/$t.c)" >&2
		exit 1
	fi
done
echo "# building ${#binaries[@]} unit test binaries unmutated"
if ! build "${binaries[@]}"; then
	tail -n 30 "$scratch/build.log"
	echo "mutants: the unmutated unit tests do not build" >&2
	exit 1
fi
for t in "${binaries[@]}"; do
	if ! run_test "$t" "$scratch/out.txt" || grep -aq '^not ok - ' "$scratch/out.txt"; then
		grep -a '^not ok - ' "$scratch/out.txt" | sed 's/^/  /' | cat -v ||
			tail -n 20 "$scratch/out.txt" | cat -v
		echo "mutants: $t fails unmutated: no mutant of it can be judged" >&2
		exit 1
	fi
done
echo "# ${#binaries[@]} unit test binaries pass unmutated"

# --- the mutants ---------------------------------------------------------------
killed=0 survived=0 broken=0
for i in "${!files[@]}"; do
	file=${files[i]} t=${tests[i]} why=${whys[i]}
	target=$copy/$file
	saved=$scratch/saved
	if [ ! -f "$target" ]; then
		echo "ERROR: $file: no such file ($why)"
		broken=$((broken + 1))
		continue
	fi
	# The lines equal to from: once their indentation is taken off.
	n=$(FROM=${froms[i]} awk '{ sub(/^[ \t]+/, "") } $0 == ENVIRON["FROM"] { n++ }
		END { print n + 0 }' "$target")
	if [ "$n" -ne 1 ]; then
		echo "ERROR: $file: from: matches $n lines, not one: ${froms[i]}"
		broken=$((broken + 1))
		continue
	fi
	cp "$target" "$saved"
	FROM=${froms[i]} TO=${tos[i]} awk '{
		line = $0
		sub(/^[ \t]+/, "", line)
		if (line == ENVIRON["FROM"]) {
			match($0, /^[ \t]*/)
			print substr($0, 1, RLENGTH) ENVIRON["TO"]
		} else {
			print
		}
	}' "$saved" > "$target"
	if cmp -s "$saved" "$target"; then
		echo "ERROR: $file: to: is the line unchanged: ${tos[i]}"
		broken=$((broken + 1))
	elif ! build "$t"; then
		echo "ERROR: $file: $t does not build with the mutant ($why)"
		grep -m 5 -E 'error|Error' "$scratch/build.log" | sed 's/^/  /' || true
		broken=$((broken + 1))
	else
		rc=0
		run_test "$t" "$scratch/out.txt" || rc=$?
		# Not grep -q, which could end the pipe early: pipefail.
		if [ "$rc" -ne 0 ] && grep -a '^not ok - ' "$scratch/out.txt" |
		   grep -F -- "${fails[i]}" > /dev/null; then
			echo "killed: $file: $why"
			if [ "${VERBOSE:-0}" = 1 ]; then
				grep -a '^not ok - ' "$scratch/out.txt" | sed 's/^/  got: /' | cat -v
			fi
			killed=$((killed + 1))
		else
			echo "SURVIVED: $file: $why"
			echo "  $t exited $rc; wanted a 'not ok' line with: ${fails[i]}"
			if grep -aq '^not ok - ' "$scratch/out.txt"; then
				grep -a '^not ok - ' "$scratch/out.txt" | sed 's/^/  got: /' | cat -v
			else
				echo "  got no 'not ok' line; the output ends:"
				tail -n 5 "$scratch/out.txt" | sed 's/^/  | /' | cat -v
			fi
			survived=$((survived + 1))
		fi
	fi
	# A plain copy: the restored file is newer than the mutant's binary,
	# which is therefore rebuilt before any later use.
	cp "$saved" "$target"
done

echo "# mutants: ${#files[@]}, killed $killed, survived $survived," \
     "not applied or not built $broken, in $((SECONDS - start)) s"
[ "$survived" -eq 0 ] && [ "$broken" -eq 0 ]
