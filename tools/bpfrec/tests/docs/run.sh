#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The documentation stays in step with the code: every command has a man
# page, every option a command's --help lists is an item of its man page's
# OPTIONS (and every item there an option of --help), the pages render
# without warnings, the bash completion offers every command, option and
# event name; and the tree's README maps every file, whose includes follow
# its layering (tree.sh).  No root, no kernel: the binary's --help only.
#   usage: BPFREC=./bpfrec MANS=.output/man tests/docs/run.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
doc=$src/Documentation
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/host/lib.sh"

# help_options HELP: the options an argp --help lists, short and long, one a
# line without their argument ("-e", "--event").  argp puts a short option at
# column 3, a long one alone at column 7, descriptions further in.
help_options() {
	awk '/^(  -[^- ][, ]|      --[a-z])/ {
		# "-e, --event=EVENT  Description": the options end at the
		# first blank (argp may leave only one before the description)
		sub(/^ +/, "")
		n = split($0, f, /, /)
		for (i = 1; i <= n; i++) {
			m = split(f[i], t, / /)
			w = t[1]
			if (w !~ /^-/)
				break
			sub(/=.*/, "", w)
			print w
			if (m > 1)
				break
		}
	}' "$1" | sort -u
}

# man_options PAGE: the options of the items of a man page's OPTIONS section:
# the lines of its source that start with an option in bold (*-e*,
# *--event*=_EVENT_).
man_options() {
	awk '/^# / { on = ($0 == "# OPTIONS") } on && /^\*-/' "$1" |
		grep -oE '\*--?[a-zA-Z0-9][a-zA-Z0-9-]*\*' | tr -d '*' | sort -u
}

"$BPFREC" --help >"$tmp/top" 2>&1
cmds=$(awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' "$tmp/top")
[ -n "$cmds" ] && pass "bpfrec --help lists the commands" ||
	fail "bpfrec --help lists the commands" "none found"

# --version names the source: git describe, or VERSION outside git.
top=$(cd "$src/../.." && pwd)
want=$("$src/version.sh" "$top")
got=$("$BPFREC" --version 2>&1)
[ "$got" = "bpfrec $want" ] && pass "--version names the source: $got" ||
	fail "--version names the source" "said '$got', version.sh says '$want'"
mkdir "$tmp/tarball"
cp "$src/version.sh" "$top/VERSION" "$tmp/tarball/"
got=$("$tmp/tarball/version.sh" "$tmp/tarball")
[ "$got" = "$(cat "$top/VERSION")" ] && pass "version.sh outside git: VERSION ($got)" ||
	fail "version.sh outside git" "said '$got', VERSION has '$(cat "$top/VERSION")'"

# bpfrec(1): the options of the usage line, and a COMMANDS item per command
sed -n 's/^Usage: //p' "$tmp/top" | grep -oE -- '--[a-z]+' | sort -u >"$tmp/want"
man_options "$doc/bpfrec.1.scd" | grep -- '^--' >"$tmp/got"
result "bpfrec.1: the options of bpfrec --help" \
	"$(diff "$tmp/want" "$tmp/got" | grep '^[<>]' | tr '\n' ' ')"
miss=
for c in $cmds; do
	grep -qx "\*$c\*" "$doc/bpfrec.1.scd" || miss="$miss $c"
done
result "bpfrec.1: every command under COMMANDS" "${miss:+missing:$miss}"

# bpfrec-CMD(1): one per command, none for a command that does not exist
for c in $cmds; do
	page=$doc/bpfrec-$c.1.scd
	if [ ! -f "$page" ]; then
		fail "bpfrec-$c.1: exists" "no $page"
		continue
	fi
	"$BPFREC" "$c" --help >"$tmp/help" 2>&1
	help_options "$tmp/help" >"$tmp/want"
	man_options "$page" >"$tmp/got"
	result "bpfrec-$c.1: documents every option of its --help, and no other" \
		"$(diff "$tmp/want" "$tmp/got" | sed -n 's/^</in --help only:/p; s/^>/in the man page only:/p' | tr '\n' ' ')"
done
for page in "$doc"/bpfrec-*.1.scd; do
	c=${page##*/bpfrec-}
	c=${c%.1.scd}
	grep -qx "$c" <<<"$cmds" || fail "bpfrec-$c.1: a command of bpfrec --help" "no command $c"
done

# The pages as man renders them: no warnings from groff, the NAME line.
for m in "$MANS"/*.1; do
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$m" >"$tmp/out" 2>"$tmp/err"
	name=${m##*/}
	name=${name%.1}
	if [ -s "$tmp/err" ]; then
		fail "$name.1: renders without warnings" "$(head -n 3 "$tmp/err" | tr '\n' ' ')"
	elif ! grep -q "^ *$name - " "$tmp/out"; then
		fail "$name.1: renders without warnings" "no NAME line '$name - ...'"
	else
		pass "$name.1: renders without warnings"
	fi
done

# The completion, run as bash runs it on a line typed so far.
cat >"$tmp/try.sh" <<'SH'
. "$1"
# try LINE: what bash would offer at the end of LINE, one a line
try() {
	local line=$1 w=() cur= c ch
	COMP_LINE=$line COMP_POINT=${#line}
	# bash's words: blanks split them, '=' and ':' are words of their own
	for ((c = 0; c < ${#line}; c++)); do
		ch=${line:c:1}
		case "$ch" in
		' ') [[ -n $cur ]] && w+=("$cur"); cur= ;;
		'=' | ':') [[ -n $cur ]] && w+=("$cur"); w+=("$ch"); cur= ;;
		*) cur+=$ch ;;
		esac
	done
	w+=("$cur")
	COMP_WORDS=("${w[@]}") COMP_CWORD=$((${#w[@]} - 1))
	COMPREPLY=()
	_bpfrec
	printf '%s\n' "${COMPREPLY[@]}" | sort -u
}
try "$2"
SH
try() { PATH=$(dirname "$BPFREC"):$PATH bash "$tmp/try.sh" "$src/bpfrec-completion.bash" "$1"; }
# complete_has NAME LINE WANT: completing LINE offers every word of WANT
complete_has() {
	local name=$1 line=$2 want=$3 got miss= w
	got=$(try "$line")
	for w in $want; do
		grep -qxF -- "$w" <<<"$got" || miss="$miss $w"
	done
	result "completion: $name" "${miss:+not offered:$miss}"
}
BPFREC_DIR=$(dirname "$BPFREC")
[ "$(basename "$BPFREC")" = bpfrec ] || fail "completion" "BPFREC must be named bpfrec"
complete_has "the commands" "bpfrec " "$cmds --help --version"
for c in $cmds; do
	"$BPFREC" "$c" --help >"$tmp/help" 2>&1
	complete_has "the options of $c" "bpfrec $c --" \
		"$(help_options "$tmp/help" | grep -- '^--' | while read -r o; do
			grep -qE "^ +(-., )?$o=" "$tmp/help" && echo "$o=" || echo "$o"; done)"
done
# An option whose --help names its words ("--call-graph=fp|dwarf[,SIZE]")
# has them completed.
for c in $cmds; do
	while read -r o words; do
		words=$(sed 's/\[[^]]*\]//g; s/|/ /g' <<<"$words")
		complete_has "$c $o=: $words" "bpfrec $c $o=" "$words"
	done < <("$BPFREC" "$c" --help 2>&1 |
		sed -nE 's/^ +(-[a-zA-Z0-9], )?(--[a-z0-9-]+)=([^ ]*[|][^ ]*).*/\2 \3/p')
done
# The event names are those of the C tables, every one.
table_names() { sed -nE 's/^\t\{ "([a-z-]+)", PERF_TYPE_.*/\1/p' "$1"; }
complete_has "record -e: every event util/sample_events.c knows, and bpf-events" \
	"bpfrec record -e " "bpf-events $(table_names "$src/util/sample_events.c")"
complete_has "stat -e: every event util/stat_events.c knows" \
	"bpfrec stat -e " "$(table_names "$src/util/stat_events.c")"
complete_has "stat -e: after a comma" "bpfrec stat -e cpu-clock,ins" "cpu-clock,instructions"
complete_has "record --capture=" "bpfrec record --capture=" "auto fentry syscall off"
complete_has "script --kinds, a list" "bpfrec script --kinds=prog,m" "prog,map"
complete_has "report -s, a list" "bpfrec report -s comm,d" "comm,dso"
if [ -r /sys/kernel/tracing/available_events ] &&
	grep -qx 'sched:sched_switch' /sys/kernel/tracing/available_events; then
	# bash has split the word at ':', and replaces what follows it
	complete_has "record -e SUBSYS:NAME" "bpfrec record -e sched:sched_swi" "sched_switch"
else
	skip "completion: record -e SUBSYS:NAME" "no readable tracefs with sched:sched_switch"
fi

# The top-level README is for users: short, its details in the files it links.
n=$(wc -l <"$top/README.md")
[ "$n" -le 250 ] && pass "README.md: at most 250 lines ($n)" ||
	fail "README.md: at most 250 lines" "$n lines: move details to docs/ or bench/README.md"
miss=
for link in $(grep -oE '\]\([^)#]+\)' "$top/README.md" | sed 's/^](//; s/)$//'); do
	[[ $link == *://* ]] || [ -e "$top/$link" ] || miss="$miss $link"
done
result "README.md: every file it links exists" "${miss:+missing:$miss}"

if out=$("$here/tree.sh" 2>&1); then
	pass "tree.sh: README.md maps every file, the includes follow its layering"
else
	fail "tree.sh: README.md maps every file, the includes follow its layering" "$(echo "$out" | tr '\n' ' ')"
fi

echo "docs: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
