# SPDX-License-Identifier: GPL-2.0
#
# The capture's paths in the guest, sourced by run.sh (its pass/fail/skip,
# $tmp, $BPFREC, $WORKLOAD, $ROUNDS and $lacks): the guest kernel takes
# trampolines, so every path is offered.  Each forced path records the
# workload and says so; fentry and syscall describe every object the
# workload created (no creation record unresolved), and no record comes
# without captured facts.

# the one line record says of what it records, by path (util: builtin-record.c)
cap_line() {
	local n cpus
	n=$(grep -c '^processor' /proc/cpuinfo)
	cpus="$n CPUs"
	[ "$n" = 1 ] && cpus="1 CPU"
	if [ "$lacks" = 1 ]; then
		case $1 in
		fentry)	how="described as they load (fentry)" ;;
		syscall) how="described as they load (the bpf() syscall tracepoints)" ;;
		off)	how="resolved by id afterwards (short-lived ones stay unresolved)" ;;
		esac
		echo "bpfrec record: recording BPF programs on $cpus, $how; not maps, links or BTF: kernel lacks bpf_obj_event, which records them"
		return
	fi
	case $1 in
	fentry)	how="programs, maps, links, BTF (fentry)" ;;
	syscall) how="programs, maps, links, BTF (syscall: sys_enter_bpf/sys_exit_bpf tracepoints)" ;;
	off)	how="none: programs resolved by id afterwards, short-lived ones stay unresolved; maps, links and BTF by their records" ;;
	esac
	echo "bpfrec record: recording BPF programs, maps, links and BTF on $cpus; described in kernel context: $how"
}

for path in auto fentry syscall off; do
	d=$tmp/capture-$path
	mkdir "$d"
	"$BPFREC" record --capture=$path -o "$d/rec.data" -- "$WORKLOAD" -n "$ROUNDS" -l "$d/ids" \
		>"$d/out" 2>"$d/err"
	rc=$?
	want=$(cap_line $path)
	[ $path = auto ] && want=$(cap_line fentry)
	if [ $rc -eq 0 ] && grep -qxF "$want" "$d/err" && ! grep -q 'without captured facts' "$d/err"; then
		pass "--capture=$path: recorded, said, no record without captured facts"
	else
		fail "--capture=$path: recorded and said" "exit $rc: $(tr '\n' ' ' <"$d/err")"
	fi
	[ $path = off ] && continue
	"$BPFREC" script -i "$d/rec.data" --json >"$d/json" 2>/dev/null
	# every creation of the workload's objects: recorded, and not unresolved
	kinds="prog PROG_LOAD map MAP_CREATE link LINK_ATTACH btf BTF_LOAD"
	[ "$lacks" = 1 ] && kinds="prog PROG_LOAD"
	bad=$(awk -v kinds="$kinds" '
		BEGIN { n = split(kinds, k, " "); for (i = 1; i < n; i += 2) ev[k[i]] = k[i + 1] }
		FILENAME == ARGV[1] { if ($1 in ev) want[ev[$1] " " $2] = 1; next }
		match($0, /"event":"[A-Z_]*"/) {
			e = substr($0, RSTART + 9, RLENGTH - 10)
			if (!match($0, /"id":[0-9]*/))
				next
			key = e " " substr($0, RSTART + 5, RLENGTH - 5)
			if (key in want)
				seen[key] = index($0, "unresolved") ? "unresolved" : "ok"
		}
		END {
			for (key in want)
				if (seen[key] != "ok")
					printf "%s %s; ", key, seen[key] == "" ? "missing" : seen[key]
		}' "$d/ids" "$d/json")
	result "--capture=$path: every object of the workload described at creation" "$bad"
done
