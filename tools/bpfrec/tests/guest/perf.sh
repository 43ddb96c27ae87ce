# SPDX-License-Identifier: GPL-2.0
#
# The series' in-tree consumer, sourced by run.sh (its pass/fail/skip/result,
# $tmp, $data, $ids, $WORKLOAD, $lacks, $reason): perf built from the patched
# tree with the perf tools follow-up (patches/perf-tools, built by
# scripts/build-perf.sh; vm-test.sh ships it as $PERF_PATCHED):
#   - `perf script --show-bpf-events` on bpfrec's recording of the workload
#     names every record of its objects, each map, link and BTF with the
#     description the workload read back with BPF_OBJ_GET_INFO_BY_FD;
#   - `perf record --bpf-obj-events` asks for the records itself: its own
#     recording of the workload has the creation of every map, link and BTF
#     (per task: a release may run in a kworker, outside the workload's
#     context);
#   - the follow-up's own perf test, tests/shell/record_bpf_obj_events.sh
#     (which build-perf.sh puts beside perf), passes: perf's bpf_objects
#     workload's map, link and BTF, created and released once each, and no
#     such record without the option;
#   - the records of a cgroup link name its cgroup (cgroup_id, the
#     directory's inode number, as bpftool link show says it) from its
#     attach to its detach, and the release names nothing;
#   - the bpf_metadata_* variables of a program that lived 1 ms, recorded
#     with --perf-metadata, are printed by perf as its BPF_METADATA records.
# Without that perf, or on a kernel without the series, the checks SKIP.

PERF_PATCHED=${PERF_PATCHED:-/opt/bpfrec/bin/perf}
pf=$tmp/perf
mkdir "$pf"

# perf_check NAME IDS TEXT RELEASES: every object of IDS has its creation
# record in TEXT, with its description; and its release when RELEASES is 1
perf_check() {
	bad=$(awk -v rel="$4" '
	FILENAME == ARGV[1] {
		if ($1 == "map") {
			want["MAP_CREATE " $2] = " map " $3 " key [0-9]+ value [0-9]+ max [0-9]+ map_flags 0x[0-9a-f]+ btf [0-9]+ name " $4 "$"
			if (rel) want["MAP_FREE " $2] = want["MAP_CREATE " $2]
		}
		if ($1 == "link") {
			want["LINK_ATTACH " $2] = " link " $3 " prog " $4 " attach "
			if (rel) want["LINK_RELEASE " $2] = want["LINK_ATTACH " $2]
		}
		if ($1 == "btf") {
			want["BTF_LOAD " $2] = " btf user size " $3 "$"
			if (rel) want["BTF_UNLOAD " $2] = want["BTF_LOAD " $2]
		}
		if ($1 == "prog") {
			want["PROG_LOAD " $2] = ""
			if (rel) want["PROG_UNLOAD " $2] = ""
		}
		next
	}
	match($0, /PERF_RECORD_BPF_EVENT type [A-Z_]+\([0-9]+\), flags 0x[0-9a-f]+, id [0-9]+/) {
		rec = substr($0, RSTART)
		split(substr($0, RSTART, RLENGTH), f, /[ (),]+/)
		key = f[3] " " f[8]
		if (!(key in want))
			next
		seen[key]++
		if (!match(substr(rec, RLENGTH + 1), want[key]) && !wrong)
			wrong = key ": \"" rec "\" lacks /" want[key] "/"
	}
	END {
		for (k in want) {
			n++
			if (seen[k] != 1 && !miss)
				miss = k ": " seen[k] + 0 " records, want 1"
		}
		if (!n)
			print "no objects in the ids"
		else if (miss || wrong)
			print miss (miss && wrong ? "; " : "") wrong
	}' "$2" "$3")
	result "$1" "$bad"
}

# perf_script NAME DATA IDS RELEASES: perf script --show-bpf-events of DATA,
# checked by perf_check against IDS
perf_script() {
	if "$PERF_PATCHED" script --show-bpf-events -i "$2" >"$2.txt" 2>"$2.err"; then
		perf_check "$1" "$3" "$2.txt" "$4"
	else
		fail "$1" "perf script exit $?: $(head -n 2 "$2.err" | tr '\n' ' ')"
	fi
}

c_script="perf tools follow-up: script names bpfrec's records, with each description"
c_record="perf tools follow-up: record --bpf-obj-events asks for the records (creations of the workload's objects)"
c_shell="perf tools follow-up: perf's test record_bpf_obj_events.sh passes"
perf_test=${PERF_PATCHED%/*}/record_bpf_obj_events.sh
why=
[ -x "$PERF_PATCHED" ] || why="no patched perf at $PERF_PATCHED (scripts/build-perf.sh builds it)"
[ -n "$why" ] || [ "$lacks" != 1 ] || why=$reason
if [ -n "$why" ]; then
	skip "$c_script" "$why"
	skip "$c_record" "$why"
	skip "$c_shell" "$why"
else
	perf_script "$c_script" "$data" "$ids" 1
	if "$PERF_PATCHED" record -q -B --bpf-obj-events -e cpu-clock -o "$pf/rec.data" -- \
		"$WORKLOAD" -n 1 -l "$pf/ids" >"$pf/rec.out" 2>"$pf/rec.err"; then
		perf_script "$c_record" "$pf/rec.data" "$pf/ids" 0
	else
		fail "$c_record" "perf record exit $?: $(head -n 2 "$pf/rec.err" | tr '\n' ' ')"
	fi
	# The test runs the perf in its PATH; it exits 2 to skip, which a kernel
	# with the series gives it no reason to do.
	PATH=${PERF_PATCHED%/*}:$PATH sh "$perf_test" >"$pf/shell.out" 2>&1
	rc=$?
	result "$c_shell" "$([ $rc = 0 ] || echo "exit $rc: $(grep -e Skipped -e Failed -e 'No such' "$pf/shell.out" |
		head -n 3 | tr '\n' ' ')")"
fi

# perf_cgroup_target: the workload's cgroup link (-c: attached, updated twice,
# detached, released) recorded by perf itself, system-wide so that a release
# run by a kworker is in the file too.
c_target="perf tools follow-up: script names a cgroup link's cgroup from ATTACH to DETACH, not in RELEASE"
perf_cgroup_target() {
	local cgroot cg cgid link got want

	cgroot=$(cgroup2_root)
	cg=$cgroot/bpfrec-perf-target
	if [ -z "$cgroot" ] || ! mkdir -p "$cg"; then
		fail "$c_target" "cannot make a cgroup under '$cgroot'"
		return
	fi
	cgid=$(stat -c %i "$cg")
	"$PERF_PATCHED" record -q -a --bpf-obj-events -e cpu-clock -o "$pf/cg.data" -- \
		"$WORKLOAD" -c "$cg" -l "$pf/cgids" >"$pf/cg.out" 2>"$pf/cg.err"
	rc=$?
	rmdir "$cg"
	link=$(awk '$1 == "cglink" { print $2 }' "$pf/cgids" 2>/dev/null)
	if [ $rc -ne 0 ] || [ -z "$link" ]; then
		fail "$c_target" "perf record exit $rc, ids: $(tr '\n' ' ' <"$pf/cgids" 2>/dev/null)"
		return
	fi
	"$PERF_PATCHED" script --show-bpf-events -i "$pf/cg.data" >"$pf/cg.txt" 2>&1
	got=$(awk -v id="$link" '
	match($0, /PERF_RECORD_BPF_EVENT type [A-Z_]+\([0-9]+\), flags 0x[0-9a-f]+, id [0-9]+/) {
		split(substr($0, RSTART, RLENGTH), f, /[ (),]+/)
		if (f[8] != id)
			next
		target = match($0, / cgroup_id [0-9]+/) ? substr($0, RSTART + 11, RLENGTH - 11) : "none"
		printf "%s %s;", f[3], target
	}' "$pf/cg.txt")
	want="LINK_ATTACH $cgid;LINK_UPDATE $cgid;LINK_UPDATE $cgid;LINK_DETACH $cgid;LINK_RELEASE none;"
	result "$c_target" "$([ "$got" = "$want" ] || echo "link $link: got '$got', want '$want'")"
}

if [ -n "$why" ]; then
	skip "$c_target" "$why"
else
	perf_cgroup_target
fi

# The metadata of meta.bpf.c's program (owner and level), which meta-load
# unloads 1 ms after loading it: perf 6.16 and later print it from the
# BPF_METADATA records that --perf-metadata writes.
c_meta="perf tools follow-up: script prints the metadata of a program of 1 ms"
meta_load=/opt/bpfrec/tests/guest/meta-load
meta_obj=/opt/bpfrec/tests/guest/objects/meta.bpf.o
why=
[ -x "$PERF_PATCHED" ] || why="no patched perf at $PERF_PATCHED (scripts/build-perf.sh builds it)"
[ -n "$why" ] || [ -x "$meta_load" ] || why="no $meta_load in the guest"
if [ -n "$why" ]; then
	skip "$c_meta" "$why"
elif ! "$BPFREC" record --perf-metadata -o "$pf/meta.data" -- "$meta_load" "$meta_obj" \
	>"$pf/meta.ids" 2>"$pf/meta.err"; then
	fail "$c_meta" "bpfrec record exit $?: $(tail -n 2 "$pf/meta.err" | tr '\n' ' ')"
else
	"$PERF_PATCHED" script --show-bpf-events -i "$pf/meta.data" >"$pf/meta.txt" 2>"$pf/meta.perr"
	n=$(grep -A2 "PERF_RECORD_BPF_METADATA prog bpf_prog_[0-9a-f]*_meta_prog$" "$pf/meta.txt" |
		tr -s ' ' | grep -c -e 'entry 0: owner = "bpfrec test"$' -e 'entry 1: level = -42$')
	result "$c_meta" "$([ "$n" = 2 ] ||
		echo "$n of 2 entries: $(grep -A2 BPF_METADATA "$pf/meta.txt" | head -n 6 | tr '\n' ' ') $(head -c 200 "$pf/meta.perr")")"
fi
