# SPDX-License-Identifier: GPL-2.0
#
# A map's creator while another task opens the maps by id as they appear
# (workload -o), sourced by run.sh (its result/skip, $tmp, $BPFREC,
# $WORKLOAD, $lacks).  bpf_map_new_fd() runs for the opener's fd too, and
# may run for it first: the capture's first fd of a map would name the
# opener.  With the series the MAP_CREATE record comes from the creating
# task, and record takes the creator from it: report's "Objects by
# creating process" has the workload with every map, the opener with none.
#
# The workload does not leave the race to the scheduler: the creator closes
# each map only after the opener says it holds an fd of it, so the opener
# has opened every one of the RACE maps on every machine, and a recorder
# that credited an fd's opener would name the opener for all of them.

RACE=${RACE:-500}
cr=$tmp/creator
mkdir "$cr"

creator_race() {
	"$BPFREC" record -e bpf-events -o "$cr/race.data" -- \
		"$WORKLOAD" -o "$RACE" -l "$cr/ids" >"$cr/out" 2>"$cr/err"
	rc=$?
	sed 's/^/# creator record: /' "$cr/out" "$cr/err"
	wpid=$(awk '$1 == "pid" { print $2 }' "$cr/ids")
	maps=$(grep -c '^map [1-9][0-9]* array race_map$' "$cr/ids")
	set -- $(awk '$1 == "opener" { print $2, $3 }' "$cr/ids")
	if [ $rc -ne 0 ] || [ $# -ne 2 ] || [ "$maps" -ne "$RACE" ]; then
		result "creator: maps opened by id as they appear" \
			"exit $rc, $maps maps, opener: $*"
		return
	fi
	opid=$1 opened=$2
	"$BPFREC" report -i "$cr/race.data" >"$cr/report" 2>&1
	# "PID COMM PROGS MAPS LINKS BTF" rows of the workload and the opener
	rows=$(awk -v w="$wpid" -v o="$opid" '
		/^Objects by creating process:/ { on = 1; next }
		on && NF == 0 { exit }
		on && ($1 == w || $1 == o) { printf "%s %s %s;", $1, $2, $4 }' "$cr/report")
	result "creator: the workload ($wpid) created all $RACE maps, the opener ($opid, holding all $opened by id) none" \
		"$([ "$rows" = "$wpid workload $RACE;" ] && [ "$opened" -eq "$RACE" ] ||
		   echo "rows '$rows', the opener held $opened of $RACE")"
}

if [ "$lacks" = 1 ]; then
	skip "creator: maps opened by id as they appear" "kernel $(uname -r) lacks bpf_obj_event: the first fd names the creator"
else
	creator_race
fi
