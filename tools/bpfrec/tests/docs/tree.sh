#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tree is what its README says: every file of tools/bpfrec has a row in
# the README's file tables (a row may name several files with a shell pattern,
# `util/ring.[ch]`), every row names files that exist, and the includes
# follow the README's layering rule:
#   - the command layer (this folder) may include anything below it, and
#     nothing below includes it;
#   - util/ includes util/ (util/perf_data/ through its public headers
#     only) and the headers of bpf_skel/;
#   - util/perf_data/ includes only itself, util/bpf_obj.h,
#     util/hashmap.h, util/array.h and, of libbpf, its BTF parser;
#   - a BPF program (*.bpf.c) includes only vmlinux.h, libbpf's BPF headers
#     and the headers of its own folder; a header bpf_skel/ shares with
#     user space includes nothing;
#   - no two headers include each other, and no two .c files call each
#     other's functions.
# The tests (tests/, fuzz/) may include anything they test.
#   usage: tests/docs/tree.sh        (exit 1 and a line per fault)
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
cd "$src" || exit 1
faults=0
fault() { faults=$((faults + 1)); echo "tree: $*"; }

# --- the README's tables ---------------------------------------------------
# The patterns of the first cell of the rows of the file tables, those whose
# header is "| file | its job |": `a`, `b` ...
patterns=$(awk -F'|' '/^\| file \| its job \|$/ { on = 1; next } !/^\|/ { on = 0 }
	on && /^\| *`/ { print $2 }' README.md | grep -oE '`[^`]+`' | tr -d '`')
files=$(git ls-files -co --exclude-standard . | grep -v '^\.gitignore$')
shopt -s extglob
for f in $files; do
	found=
	for p in $patterns; do
		# shellcheck disable=SC2053 # the row's pattern is a glob
		if [[ $f == $p ]]; then
			found=1
			break
		fi
	done
	[ -n "$found" ] || fault "$f: no row of README.md names it"
done
for p in $patterns; do
	found=
	for f in $files; do
		# shellcheck disable=SC2053
		if [[ $f == $p ]]; then
			found=1
			break
		fi
	done
	[ -n "$found" ] || fault "README.md: the row of \`$p\` names no file"
done

# --- the layering rule -----------------------------------------------------
# includes FILE: FILE's includes, "q NAME" (quoted) or "a NAME" (<angle>)
includes() {
	sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/q \1/p;
		 s/^[[:space:]]*#[[:space:]]*include[[:space:]]*<([^>]+)>.*/a \1/p' "$1"
}

for f in $(printf '%s\n' $files | grep -E '\.(c|h)$'); do
	while read -r how inc; do
		case "$f" in
		tests/* | fuzz/*)
			;;
		*.bpf.c | bpf_skel/*.bpf.h)
			[ "$how" = a ] && [[ $inc == bpf/* ]] && continue
			[ "$inc" = vmlinux.h ] && continue
			[ "$how" = q ] && [ -f "$(dirname "$f")/$inc" ] && [[ $inc != */* ]] && continue
			fault "$f includes ${inc}: a BPF program includes only vmlinux.h, <bpf/...> and its folder's headers"
			;;
		bpf_skel/*.h)
			fault "$f includes ${inc}: a header shared with user space includes nothing"
			;;
		util/perf_data/*)
			[ "$how" = a ] && [[ $inc != bpf/* || $inc == bpf/btf.h ]] && continue
			case "$inc" in
			util/perf_data/* | util/bpf_obj.h | util/hashmap.h | util/array.h) continue ;;
			esac
			fault "$f includes ${inc}: util/perf_data/ includes only itself, util/bpf_obj.h, util/hashmap.h, util/array.h and <bpf/btf.h>"
			;;
		util/*)
			[ "$how" = a ] && continue
			case "$inc" in
			util/perf_data/format.h | util/perf_data/unzip.h)
				fault "$f includes ${inc}: private to util/perf_data/" ;;
			util/* | bpf_skel/*.h) ;;
			*) fault "$f includes ${inc}: util/ includes only util/ and bpf_skel/ headers" ;;
			esac
			;;
		*)
			# the command layer
			case "$inc" in
			util/perf_data/format.h | util/perf_data/unzip.h)
				fault "$f includes ${inc}: private to util/perf_data/" ;;
			tests/* | fuzz/* | examples/*)
				fault "$f includes ${inc}: the commands include no test or example" ;;
			esac
			;;
		esac
	done < <(includes "$f")
done

# No two headers include each other.
for h in $(printf '%s\n' $files | grep -E '\.h$'); do
	while read -r how inc; do
		[ "$how" = q ] || continue
		[ -f "$inc" ] || inc=$(dirname "$h")/$inc
		[ -f "$inc" ] || continue
		includes "$inc" | grep -qxE "q ($h|${h##*/})" &&
			[[ $h < $inc ]] && fault "$h and $inc include each other"
	done < <(includes "$h")
done

# No two files depend on each other.  Beyond includes, two .c files whose
# functions call each other are a circle too: neither can be understood,
# tested or replaced without the other.  A file defines the functions it
# does not declare static, and uses one of another file where its name
# stands in its code (comments and strings left out).
# shellcheck disable=SC2016 # the awk program is in single quotes
calls_awk='
	# The code of a line, without comments and string literals.
	function code(s) {
		if (incomment) {
			if (!sub(/^([^*]|\*+[^*\/])*\*+\//, "", s))
				return ""
			incomment = 0
		}
		gsub(/"([^"\\]|\\.)*"/, "\"\"", s)
		gsub(/'"'"'([^'"'"'\\]|\\.)*'"'"'/, "0", s)
		gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, " ", s)
		sub(/\/\/.*/, "", s)
		if (sub(/\/\*.*/, "", s))
			incomment = 1
		return s
	}
	FNR == 1 {
		incomment = 0
		if (FILENAME == first)
			pass = 2
		if (!first)
			first = FILENAME
	}
	{ s = code($0) }
	# the first reading: who defines what (a definition starts at column 0)
	pass != 2 && s ~ /^[A-Za-z_][A-Za-z_0-9 *]*\(/ && s !~ /^(static|typedef|extern|return)[ \t]/ &&
	s !~ /;[ \t]*$/ {
		name = s
		sub(/\(.*/, "", name)
		n = split(name, w, /[^A-Za-z_0-9]+/)
		if (w[n] != "")
			def[w[n]] = FILENAME
		next
	}
	# the second: who uses whose
	pass == 2 {
		n = split(s, w, /[^A-Za-z_0-9]+/)
		for (i = 1; i <= n; i++)
			if ((w[i] in def) && def[w[i]] != FILENAME)
				uses[FILENAME " " def[w[i]]] = 1
	}
	END {
		for (k in uses) {
			split(k, ab, " ")
			if (ab[1] < ab[2] && ((ab[2] " " ab[1]) in uses))
				print ab[1], ab[2]
		}
	}'
sources=$(printf '%s\n' $files | grep -E '\.c$' | grep -vE '^(tests|fuzz|examples|bpf_skel)/')
# shellcheck disable=SC2086 # one word per file
while read -r a b; do
	[ -n "$a" ] && fault "$a and $b call each other's functions: one of them should depend on the other only"
done < <(awk "$calls_awk" $sources $sources | sort)

[ "$faults" -eq 0 ]
