# SPDX-License-Identifier: GPL-2.0
#
# bash completion for bpfrec(1): its commands, their options, event names and
# the values of options that take one of a few words.  The commands and options
# are read from the --help of the bpfrec being completed, so that they are
# always that binary's; the event names are those bpfrec knows
# (util/sample_events.c, util/stat_events.c) and the running kernel's
# tracepoints.  Installed as share/bash-completion/completions/bpfrec; it
# needs bash only, not the bash-completion package.

# Events `record -e` samples, and those `stat -e` counts.
_bpfrec_record_events="bpf-events cpu-clock task-clock page-faults faults minor-faults
major-faults context-switches cs cpu-migrations migrations alignment-faults
emulation-faults cycles cpu-cycles instructions cache-references cache-misses branches
branch-instructions branch-misses bus-cycles ref-cycles"
_bpfrec_stat_events="cpu-clock task-clock context-switches cpu-migrations page-faults
cycles instructions branches branch-misses cache-references cache-misses"

# _bpfrec_commands BPFREC: the commands `BPFREC --help` lists.
_bpfrec_commands()
{
	"$1" --help 2>/dev/null | awk '/^Commands:/ { on = 1; next }
		on && /^$/ { exit }
		on && /^  [a-z]/ { print $1 }'
}

# _bpfrec_options BPFREC CMD: the options `BPFREC CMD --help` lists, one a
# line, a long one that takes a value with its '='.  argp puts a short option
# at column 3 and a long one alone at column 7; descriptions start further in.
_bpfrec_options()
{
	"$1" "$2" --help 2>/dev/null | awk '/^(  -[^- ][, ]|      --[a-z])/ {
		# "-e, --event=EVENT  Description": the options end at the
		# first blank (argp may leave only one before the description)
		sub(/^ +/, "")
		n = split($0, f, /, /)
		for (i = 1; i <= n; i++) {
			m = split(f[i], t, / /)
			w = t[1]
			if (w !~ /^-/)
				break
			if (w ~ /=/)
				sub(/=.*/, "=", w)
			print w
			if (m > 1)
				break
		}
	}'
}

# _bpfrec_list WORDS CUR: complete the last item of a comma-separated CUR.
_bpfrec_list()
{
	local head= last=$2
	if [[ $2 == *,* ]]; then
		head=${2%,*},
		last=${2##*,}
	fi
	COMPREPLY=($(compgen -P "$head" -W "$1" -- "$last"))
}

# _bpfrec_value CMD OPT CUR: complete the value CUR of option OPT; false when
# OPT takes none.
_bpfrec_value()
{
	local cmd=$1 opt=$2 cur=$3 tps
	case "$cmd:$opt" in
	record:-e | record:--event)
		# the tracepoints as SUBSYS:NAME, as available_events lists them
		for tps in /sys/kernel/tracing /sys/kernel/debug/tracing; do
			[[ -r $tps/available_events ]] && break
		done
		COMPREPLY=($(compgen -W "$_bpfrec_record_events $(cat "$tps/available_events" 2>/dev/null)" -- "$cur"))
		;;
	stat:-e | stat:--event)
		_bpfrec_list "$_bpfrec_stat_events" "$cur" ;;
	*:--capture) COMPREPLY=($(compgen -W "auto fentry syscall off" -- "$cur")) ;;
	*:--off-cpu-threads) COMPREPLY=($(compgen -W "user kernel all" -- "$cur")) ;;
	*:--off-cpu-state) _bpfrec_list "R S D T I" "$cur" ;;
	script:--kinds) _bpfrec_list "prog map link btf ksymbol lost output" "$cur" ;;
	report:-s | report:--sort) _bpfrec_list "comm dso sym bpf" "$cur" ;;
	report:--by) COMPREPLY=($(compgen -W "loader exe cgroup target" -- "$cur")) ;;
	stat:--sort | top:--sort) COMPREPLY=($(compgen -W "time runs avg id name" -- "$cur")) ;;
	stat:-b | stat:--bpf-prog)
		# the ids of the programs loaded now (root only, as stat -b)
		_bpfrec_list "$(bpftool prog list 2>/dev/null | sed -n 's/^\([0-9]*\): .*/\1/p')" "$cur" ;;
	script:--dump)
		# the programs whose instructions the file kept: the PROG_LOADs of -i FILE (or the default)
		local in= w
		for ((w = 2; w < ${#words[@]} - 1; w++)); do
			[[ ${words[w]} == -i || ${words[w]} == --input ]] && in=${words[w + 1]}
			[[ ${words[w]} == --input=* ]] && in=${words[w]#--input=}
		done
		COMPREPLY=($(compgen -W "$("$COMP_BPFREC" script ${in:+-i "$in"} --kinds prog -F event,id 2>/dev/null |
			awk '$1 == "PROG_LOAD" { print $2 }')" -- "$cur")) ;;
	*:-p | *:--pid)
		_bpfrec_list "$(cd /proc && compgen -G '[0-9]*')" "$cur" ;;
	*:--object) COMPREPLY=($(compgen -f -X '!*.o' -- "$cur") $(compgen -d -- "$cur")) ;;
	*:--off-cpu-cgroup | *:-G | *:--cgroup | *:--bpf-registry)
		COMPREPLY=($(compgen -d -- "$cur")) ;;
	*:-i | *:--input | *:-o | *:--output | *:--svg | *:--kallsyms | serve:--events | record:--exe)
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	*)
		# any other option that takes a value: --help shows it with '=',
		# or a short one its long twin.  Its words when --help lists them
		# ("--call-graph=fp|dwarf[,SIZE]": fp, dwarf), else nothing to offer.
		local arg
		arg=$("$COMP_BPFREC" "$cmd" --help 2>/dev/null |
			sed -nE "s/^ +(-[a-zA-Z0-9], )?${opt}(, --[a-z0-9-]+)?=([^ ]+).*/\3/p; s/^  ${opt}, --[a-z0-9-]+=([^ ]+).*/\1/p" |
			head -n 1)
		[[ -n $arg ]] || return 1
		COMPREPLY=()
		if [[ $arg == *'|'* ]]; then
			arg=$(sed 's/\[[^]]*\]//g' <<<"$arg")
			COMPREPLY=($(compgen -W "${arg//|/ }" -- "$cur"))
		fi
		;;
	esac
	return 0
}

_bpfrec()
{
	local COMP_BPFREC=${COMP_WORDS[0]}
	local line=${COMP_LINE:0:COMP_POINT} words cur prev= cmd= i n

	# Words split at blanks only: bash splits '--opt=value' and 'SUBSYS:NAME'
	# too, which is undone at the end.
	read -ra words <<<"$line"
	[[ $line == *[[:blank:]] ]] && words+=("")
	n=${#words[@]}
	cur=${words[n - 1]}
	((n >= 3)) && prev=${words[n - 2]}
	((n >= 3)) && cmd=${words[1]}
	if ((n <= 2)); then
		COMPREPLY=($(compgen -W "$(_bpfrec_commands "$COMP_BPFREC") --help --version" -- "$cur"))
		return
	fi
	# after `--`, the command line bpfrec runs
	for ((i = 2; i < COMP_CWORD; i++)); do
		[[ ${COMP_WORDS[i]} == -- ]] || continue
		if declare -F _command_offset >/dev/null; then
			_command_offset $((i + 1))
		else
			COMPREPLY=($(compgen -c -- "${COMP_WORDS[COMP_CWORD]}"))
		fi
		return
	done

	if [[ $cur == --*=* ]]; then
		_bpfrec_value "$cmd" "${cur%%=*}" "${cur#*=}"
	elif [[ $prev == -* ]] && _bpfrec_value "$cmd" "$prev" "$cur"; then
		:
	elif [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_bpfrec_options "$COMP_BPFREC" "$cmd")" -- "$cur"))
		# no space after a long option that takes a value
		[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
	# bash replaces only what follows its last word break ('=' or ':')
	local cut=${cur#--*=}
	if [[ $COMP_WORDBREAKS == *:* && $cut == *:* ]]; then
		cut=${cut%:*}:
		for i in "${!COMPREPLY[@]}"; do
			COMPREPLY[i]=${COMPREPLY[i]#"$cut"}
		done
	fi
}

complete -F _bpfrec bpfrec
