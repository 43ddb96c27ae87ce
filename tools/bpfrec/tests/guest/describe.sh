# SPDX-License-Identifier: GPL-2.0
#
# Records that describe their objects (kernel series v2), sourced by
# run.sh (its pass/fail/skip/result, $tmp, $BPFREC, $WORKLOAD, $lacks):
#   - `record --capture=off` around a storm of short-lived BTF, maps and
#     links (workload -s): each one named and typed from its record's
#     description, with no syscall and no capture (gone before either
#     could look): at least 99.9 %, counted exactly;
#   - a cgroup link (workload -c) updated without and with BPF_F_REPLACE,
#     then detached: LINK_UPDATE and LINK_DETACH in script with the
#     exact program ids, in order, before its LINK_RELEASE; every record
#     up to the detach names the cgroup (its id is the directory's inode
#     number), from the record alone, and the release names nothing.
# A kernel with series v1 (no bpf_link_perf_detach in /proc/kallsyms)
# writes no descriptions: skipped with the reason.

STORM=${STORM:-1000}
dd=$tmp/describe
mkdir "$dd"

# describe_skip REASON: every check of this file skipped
describe_skip() {
	for c in "storm: named and typed from descriptions" "cgroup link: update and detach"; do
		skip "describe: $c" "$1"
	done
}

# link_fields FILE EVENT: "old_prog prog replace attach" of the JSON line of EVENT in FILE
link_fields() {
	awk -v ev="$2" '
	function num(k) { return match($0, "\"" k "\":[0-9]+") ? substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3) : "-" }
	index($0, "\"event\":\"" ev "\"") {
		printf "%s %s %s %s\n", num("old_prog"), num("prog"),
			index($0, "\"replace\":true") ? "replace" : "-",
			match($0, /"attach":"[a-z_]*"/) ? substr($0, RSTART + 10, RLENGTH - 11) : "-"
	}' "$1"
}

describe_storm() {
	"$BPFREC" record --capture=off -e bpf-events -m 512 -o "$dd/storm.data" -- \
		"$WORKLOAD" -s "$STORM" -l "$dd/ids" >"$dd/rec.out" 2>"$dd/rec.err"
	rc=$?
	sed 's/^/# storm record: /' "$dd/rec.out" "$dd/rec.err"
	if [ $rc -ne 0 ] || [ "$(grep -c . "$dd/ids")" -ne $((3 * STORM + 2)) ]; then
		fail "describe: storm recorded" "exit $rc, $(grep -c . "$dd/ids") lines of ids"
		return
	fi
	"$BPFREC" script -i "$dd/storm.data" --json --kinds map,link,btf >"$dd/json" 2>"$dd/json.err"
	# per object of the storm: its creation and release records, and whether the
	# creation names and types it as the workload read it back
	awk -v n="$STORM" '
	function num(l, k) { return match(l, "\"" k "\":[0-9]+") ? substr(l, RSTART + length(k) + 3, RLENGTH - length(k) - 3) : "" }
	function str(l, k) { return match(l, "\"" k "\":\"[^\"]*\"") ? substr(l, RSTART + length(k) + 4, RLENGTH - length(k) - 5) : "" }
	FILENAME == ARGV[1] {
		if ($1 == "btf") { btf = $2; want["BTF_LOAD " $2] = "size=" $3; rel["BTF_UNLOAD " $2] = 1 }
		if ($1 == "map") { want["MAP_CREATE " $2] = "array demo_map 4 8 1 " btf; rel["MAP_FREE " $2] = 1 }
		if ($1 == "link") { want["LINK_ATTACH " $2] = "raw_tracepoint " $4; rel["LINK_RELEASE " $2] = 1 }
		next
	}
	{
		ev = str($0, "event"); key = ev " " num($0, "id")
		if (key in rel) released[key]++
		if (!(key in want))
			next
		created[key]++
		if (index($0, "unresolved"))
			got = "unresolved"
		else if (ev == "MAP_CREATE")
			got = str($0, "type") " " str($0, "name") " " num($0, "key") " " num($0, "value") " " num($0, "max_entries") " " num($0, "btf")
		else if (ev == "LINK_ATTACH")
			got = str($0, "type") " " num($0, "prog")
		else
			got = (index($0, "\"user\":true") ? "size=" num($0, "size") : "not user")
		if (got == want[key])
			named++
		else if (bad++ < 3)
			why = why key ": " got ", want " want[key] "; "
	}
	END {
		for (k in want) { total++; if (created[k] != 1) missing++ }
		for (k in rel) if (released[k] != 1) unreleased++
		printf "%d %d %d %d %s\n", named, total, missing, unreleased, why
	}' "$dd/ids" "$dd/json" >"$dd/count"
	read -r named total missing unreleased why <"$dd/count"
	pct=$(awk -v a="$named" -v b="$total" 'BEGIN { printf "%.2f", b ? 100 * a / b : 0 }')
	echo "# describe: storm of $STORM: $named of $total objects named and typed from descriptions ($pct %), $missing without one creation record, $unreleased without one release record"
	if [ "$total" -eq $((3 * STORM)) ] && [ $((named * 1000)) -ge $((total * 999)) ]; then
		pass "describe: storm: $named of $total ($pct %) named and typed from descriptions, --capture=off"
	else
		fail "describe: storm: >= 99.9 % of $((3 * STORM)) named and typed from descriptions" "$named of $total ($pct %): $why"
	fi
	result "describe: storm: one creation and one release record per object" \
		"$([ "$missing$unreleased" = 00 ] || echo "$missing without one creation, $unreleased without one release")"
	# the recorder's own count: nothing was left for a syscall to resolve
	if grep -q ' BTF (0 unresolved) in ' "$dd/rec.err"; then
		pass "describe: storm: record resolved every object"
	else
		fail "describe: storm: record resolved every object" "$(grep 'unresolved)' "$dd/rec.err")"
	fi
}

describe_cgroup() {
	cgroot=$(cgroup2_root)
	cg=$cgroot/bpfrec-describe
	if [ -z "$cgroot" ] || ! mkdir -p "$cg"; then
		fail "describe: cgroup link: setup" "cannot make $cg"
		return
	fi
	cgid=$(stat -c %i "$cg")
	"$BPFREC" record --capture=off -e bpf-events -o "$dd/cg.data" -- \
		"$WORKLOAD" -c "$cg" -l "$dd/cgids" >"$dd/cg.out" 2>"$dd/cg.err"
	rc=$?
	rmdir "$cg"
	sed 's/^/# cgroup record: /' "$dd/cg.out" "$dd/cg.err"
	set -- $(awk '$1 == "cglink" { print $2, $3, $4, $5 }' "$dd/cgids")
	if [ $rc -ne 0 ] || [ $# -ne 4 ]; then
		fail "describe: cgroup link: recorded" "exit $rc, ids: $(tr '\n' ' ' <"$dd/cgids")"
		return
	fi
	link=$1 a=$2 b=$3 c=$4
	"$BPFREC" script -i "$dd/cg.data" --kinds link --width 0 >"$dd/cg.txt" 2>&1
	sed 's/^/# cgroup script: /' "$dd/cg.txt"
	"$BPFREC" script -i "$dd/cg.data" --kinds link --json >"$dd/cg.json" 2>&1
	grep "\"id\":$link," "$dd/cg.json" >"$dd/cg.mine"
	events=$(awk '{ if (match($0, /"event":"[A-Z_]*"/)) printf "%s ", substr($0, RSTART + 9, RLENGTH - 10) }' "$dd/cg.mine")
	result "describe: cgroup link $link: ATTACH, UPDATE, UPDATE, DETACH, RELEASE in order" \
		"$([ "$events" = "LINK_ATTACH LINK_UPDATE LINK_UPDATE LINK_DETACH LINK_RELEASE " ] || echo "$events")"
	got=$(link_fields "$dd/cg.mine" LINK_ATTACH)
	result "describe: cgroup link: LINK_ATTACH prog $a (cgroup_inet_ingress)" \
		"$([ "$got" = "- $a - cgroup_inet_ingress" ] || echo "$got")"
	got=$(link_fields "$dd/cg.mine" LINK_UPDATE | tr '\n' ';')
	result "describe: cgroup link: LINK_UPDATE $a -> $b (no BPF_F_REPLACE), $b -> $c (BPF_F_REPLACE)" \
		"$([ "$got" = "$a $b - cgroup_inet_ingress;$b $c replace cgroup_inet_ingress;" ] || echo "$got")"
	got=$(link_fields "$dd/cg.mine" LINK_DETACH)
	result "describe: cgroup link: LINK_DETACH of prog $c" \
		"$([ "$got" = "- $c - cgroup_inet_ingress" ] || echo "$got")"
	got=$(awk '{ printf "%s;", match($0, /"target":"[^"]*"/) ? substr($0, RSTART + 10, RLENGTH - 11) : "none" }' "$dd/cg.mine")
	want="cgroup $cgid;cgroup $cgid;cgroup $cgid;cgroup $cgid;none;"
	result "describe: cgroup link: the cgroup ($cgid) named by ATTACH, UPDATE, UPDATE and DETACH, not by RELEASE" \
		"$([ "$got" = "$want" ] || echo "$got")"
}

if [ "$lacks" = 1 ]; then
	describe_skip "kernel $(uname -r) lacks bpf_obj_event"
elif [ -r /proc/kallsyms ] && ! grep -q ' bpf_link_perf_detach$' /proc/kallsyms; then
	describe_skip "kernel $(uname -r) has series v1 (no bpf_link_perf_detach): its records carry no descriptions"
else
	describe_storm
	describe_cgroup
fi
