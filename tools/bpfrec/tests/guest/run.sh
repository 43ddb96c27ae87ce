#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest tests of the recorder: map, link, BTF (and program) records on the
# patched kernel, with exact counts and ids.  POSIX sh and busybox
# tools only (no bash, no python in the guest); run as root.
#
#   run.sh [-n ROUNDS]
#
# Records `workload -n ROUNDS -l IDS` with `bpfrec record -e bpf-events`,
# then checks, for every id the workload wrote to IDS, `bpfrec script`
# (JSON and text) and `bpfrec report`.  On a kernel without the series
# (no perf_bpf_obj_events in /proc/kallsyms, and bpfrec record says the
# kernel lacks bpf_obj_event) the map/link/BTF checks are skipped with the
# reason; the program checks run everywhere.
#
# Environment: BPFREC (default: bpfrec on PATH, else ../../bpfrec),
# WORKLOAD (default: workload next to this script).
# One line per check: "ok    NAME", "FAIL  NAME: detail", "skip  NAME: reason";
# last line "bpfrec guest: N passed, N failed, N skipped"; exit 1 on failure.

here=$(cd "$(dirname "$0")" && pwd)
ROUNDS=3
[ "${1:-}" = -n ] && ROUNDS=$2

if [ -z "${BPFREC:-}" ]; then
	BPFREC=$(command -v bpfrec 2>/dev/null)
	[ -n "$BPFREC" ] || BPFREC=$here/../../bpfrec
fi
WORKLOAD=${WORKLOAD:-$here/workload}

passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1${2:+: $2}"; }
skip() { skipped=$((skipped + 1)); echo "skip  $1${2:+: $2}"; }

finish() {
	echo "bpfrec guest: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit
}

# result NAME DETAIL: pass when DETAIL is empty, else fail with it
result() {
	if [ -z "$2" ]; then pass "$1"; else fail "$1" "$2"; fi
}

# wait_until SECONDS CMD...: until CMD succeeds, tried four times a second;
# status 1 after SECONDS or more.  The tests wait for a condition rather
# than sleep a time that must be long enough: the guest runs under TCG,
# 10 to 50 times slower than the host, beside kernel builds, so the bound
# is generous and ends only a test that fails anyway.
wait_until() {
	_tries=$(($1 * 4))
	shift
	until "$@"; do
		_tries=$((_tries - 1))
		[ "$_tries" -gt 0 ] || return 1
		sleep 0.25
	done
}

# exited PID: process PID has ended (a zombie not yet waited for, or gone)
exited() {
	[ ! -r "/proc/$1/stat" ] || [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" = Z ]
}

# stuck PID: where process PID and each of its threads wait, as comment
# lines of the console: its command, state, the syscall it is in and the
# kernel stack of each thread.
stuck() {
	echo "# stuck: $1 ($(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null))"
	for _t in /proc/"$1"/task/*; do
		echo "#   thread ${_t##*/}: $(grep '^State' "$_t/status" 2>/dev/null)," \
			"wchan $(cat "$_t/wchan" 2>/dev/null), syscall $(cat "$_t/syscall" 2>/dev/null)"
		sed 's/^/#     /' "$_t/stack" 2>/dev/null
	done
}

# bounded_wait SECONDS PID...: wait for each PID, giving each at most
# SECONDS to exit.  One still running then is shown (stuck) and killed, so
# that a hang says where it is and fails its own tests instead of using up
# the guest's whole time.  The status is the last PID's (137 when killed).
bounded_wait() {
	_limit=$1
	shift
	_rc=0
	for _p in "$@"; do
		if ! wait_until "$_limit" exited "$_p"; then
			stuck "$_p"
			kill -9 "$_p" 2>/dev/null
		fi
		wait "$_p"
		_rc=$?
	done
	return $_rc
}

# in_loop PID: the recorder PID waits in its main loop, epoll_wait (232 on
# x86-64: nothing before the loop calls it), so its events are enabled and
# its objects loaded; or it is gone
in_loop() {
	[ ! -d "/proc/$1" ] || { read -r _nr _rest <"/proc/$1/syscall" && [ "$_nr" = 232 ]; } 2>/dev/null
}

tmp=$(mktemp -d /tmp/bpfrec-guest.XXXXXX) || { fail "mktemp"; finish; }
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# at NAME: a comment line with the seconds since boot, so that the console
# shows where a slow guest (TCG, the debug kernel) spends its time
at() { echo "# at $(cut -d' ' -f1 /proc/uptime) s: $1"; }

# cgroup2_root: where cgroup v2 is mounted, mounting it on /sys/fs/cgroup
# when the guest has not; prints nothing when it cannot.
cgroup2_root() {
	local root

	root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	if [ -z "$root" ]; then
		root=/sys/fs/cgroup
		mkdir -p "$root" && mount -t cgroup2 none "$root" >&2 || return 0
		echo "# mounted cgroup2 on $root" >&2
	fi
	echo "$root"
}

echo "# bpfrec guest tests on $(uname -r): $BPFREC, $WORKLOAD -n $ROUNDS"
at "record"
for f in "$BPFREC" "$WORKLOAD"; do
	if [ ! -x "$f" ]; then
		fail "setup" "$f is missing or not executable"
		finish
	fi
done
if [ "$(id -u)" -ne 0 ]; then
	fail "setup" "must run as root"
	finish
fi

# BPFREC_GUEST_PARTS="PART ...": only these parts of the list at the end,
# for a boot that gives them what the others do not need: scripts/vm-test.sh
# boots one with QEMU's -icount for hist, whose clock must be steady.
if [ -n "${BPFREC_GUEST_PARTS:-}" ]; then
	for part in $BPFREC_GUEST_PARTS; do
		at "$part.sh"
		if [ -f "$here/$part.sh" ]; then
			. "$here/$part.sh"
		else
			fail "setup" "no part $part.sh"
		fi
	done
	at "end"
	finish
fi

# --- record ---------------------------------------------------------------

data=$tmp/rec.data
ids=$tmp/ids
"$BPFREC" record -e bpf-events -o "$data" -- "$WORKLOAD" -n "$ROUNDS" -l "$ids" \
	>"$tmp/rec.out" 2>"$tmp/rec.err"
rc=$?
sed 's/^/# record: /' "$tmp/rec.out" "$tmp/rec.err"
if [ "$rc" -eq 0 ]; then
	pass "record exits 0"
else
	fail "record exits 0" "status $rc: $(head -n 3 "$tmp/rec.err" | tr '\n' ' ')"
fi
if [ ! -s "$data" ]; then
	fail "record wrote $data"
	finish
fi

wpid=$(awk '$1 == "pid" { print $2; exit }' "$ids" 2>/dev/null)
nbad=$(awk -v n="$ROUNDS" '
	{ c[$1]++ }
	END {
		split("btf map prog link", k, " ")
		for (i = 1; i <= 4; i++)
			if (c[k[i]] != n)
				printf "%s: %d ids, want %d; ", k[i], c[k[i]], n
	}' "$ids" 2>/dev/null)
if [ -n "$wpid" ] && [ -z "$nbad" ] && [ -s "$ids" ]; then
	pass "workload created $ROUNDS of each object (pid $wpid)"
else
	fail "workload created $ROUNDS of each object" "${nbad:-no pid in $ids}"
	finish
fi

# --- does the kernel have the series? -------------------------------------

lacks=0
grep -q 'kernel lacks bpf_obj_event' "$tmp/rec.err" && lacks=1
patched=unknown
if [ -r /proc/kallsyms ] && [ -n "$(head -n 1 /proc/kallsyms)" ]; then
	if grep -q ' perf_bpf_obj_events$' /proc/kallsyms; then
		patched=1
	else
		patched=0
	fi
fi
case "$lacks,$patched" in
0,1)	pass "record uses bpf_obj_event (kernel has the series)" ;;
0,unknown)
	pass "record uses bpf_obj_event (said nothing of lacking it)" ;;
1,0)	skip "record uses bpf_obj_event" "kernel $(uname -r) lacks bpf_obj_event (no perf_bpf_obj_events in /proc/kallsyms); record said: $(grep 'lacks bpf_obj_event' "$tmp/rec.err")" ;;
1,unknown)
	skip "record uses bpf_obj_event" "record said: $(grep 'lacks bpf_obj_event' "$tmp/rec.err")" ;;
1,1)	fail "record uses bpf_obj_event" "the kernel has the series (perf_bpf_obj_events in /proc/kallsyms) but record said: $(grep 'lacks bpf_obj_event' "$tmp/rec.err")" ;;
0,0)	fail "record uses bpf_obj_event" "record did not say the kernel lacks it, but the kernel has no perf_bpf_obj_events" ;;
esac

# --- script ---------------------------------------------------------------

"$BPFREC" script -i "$data" --json >"$tmp/json" 2>"$tmp/json.err"
rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/json.err" ]; then
	pass "script --json exits 0 without warnings"
else
	fail "script --json exits 0 without warnings" "status $rc: $(head -n 2 "$tmp/json.err" | tr '\n' ' ')"
fi
# --ksymbol: the text shows every record the JSON has (it folds the
# KSYMBOL lines of programs' images into their PROG_LOAD/UNLOAD otherwise)
"$BPFREC" script -i "$data" --ksymbol --width 0 >"$tmp/text" 2>"$tmp/text.err"
rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/text.err" ]; then
	pass "script exits 0 without warnings"
else
	fail "script exits 0 without warnings" "status $rc: $(head -n 2 "$tmp/text.err" | tr '\n' ' ')"
fi

# to_table JSON: the JSON lines as a tab-separated table, in file (= time)
# order:  seq event id pid tid comm name type tag time_ns details
to_table() {
	awk '
function jstr(l, k) {
	if (match(l, "\"" k "\":\"[^\"]*\""))
		return substr(l, RSTART + length(k) + 4, RLENGTH - length(k) - 5)
	return "-"
}
function jnum(l, k) {
	if (match(l, "\"" k "\":[0-9]+"))
		return substr(l, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
	return "-"
}
function jobj(l, k) {
	if (match(l, "\"" k "\":\\{[^}]*\\}"))
		return substr(l, RSTART + length(k) + 4, RLENGTH - length(k) - 5)
	return ""
}
{
	printf "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", NR,
		jstr($0, "event"), jnum($0, "id"), jnum($0, "pid"),
		jnum($0, "tid"), jstr($0, "comm"), jstr($0, "name"),
		jstr($0, "type"), jstr($0, "tag"), jnum($0, "time_ns"),
		jobj($0, "details")
}' "$1"
}
to_table "$tmp/json" >"$tmp/table"

# The text and the JSON rendering tell the same story: event and id per line.
bad=$(awk -F '\t' '
	FNR == NR { ev[FNR] = $2; id[FNR] = $3; n = FNR; next }
	/^#/ { next }
	{
		# time, cpu, pid/tid, then comm in 16 columns (it may hold spaces)
		l = $0
		sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ /, "", l)
		split(substr(l, 18), f, " ")
		t++
		if (f[1] != ev[t] || f[2] != id[t])
			if (!bad) bad = "line " t ": text " f[1] " " f[2] ", json " ev[t] " " id[t]
	}
	END {
		if (!bad && t != n) bad = t " text lines, " n " JSON lines"
		print bad
	}' "$tmp/table" "$tmp/text")
result "script text and JSON agree" "$bad"

# No LOST record and nothing lost according to record.
bad=$(awk -F '\t' '$2 == "LOST" { n++ } END { if (n) print n " LOST records" }' "$tmp/table")
grep -q 'LOST' "$tmp/rec.err" && bad="$bad record said: $(grep LOST "$tmp/rec.err")"
result "no records lost" "$bad"

# check_kind KIND CREATE RELEASE RELCHECK: the per-id checks of one object
# kind, on the ids file $IDS and the table $TABLE of a recording of $N
# rounds by pid $WPID.  Check names start with $PFX.  SYNTH=1: the objects
# existed before the recording, their creation records are synthesised.
# RELCHECK, when set, names a check that the release records carry $WPID.
# A link's target is resolved by syscall while the link exists: required
# for synthesised links, optional (but never wrong) for short-lived ones.
check_kind() {
	awk -F '\t' -v kind="$1" -v cev="$2" -v rev="$3" -v relchk="$4" \
	    -v wpid="$WPID" -v n="$N" -v pfx="$PFX" -v synth="$SYNTH" '
	function add(name, msg) {
		if (!(name in err)) {
			order[++nchk] = name
			err[name] = ""
		}
		if (msg != "" && err[name] == "")
			err[name] = msg
	}
	function detail(d, k,   m) {
		if (match(d, "\"" k "\":(\"[^\"]*\"|[0-9a-z]+)")) {
			m = substr(d, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
			gsub(/"/, "", m)
			return m
		}
		return ""
	}
	FILENAME == ARGV[1] {
		# ids: pid, then per round btf, map, prog, link
		split($0, f, " ")
		if (f[1] == "btf") cur_btf = f[2]
		if (f[1] == "map") cur_map = f[2]
		if (f[1] != kind)
			next
		nid++
		ids[nid] = f[2]
		mine[f[2]] = 1
		etype[f[2]] = f[3]
		ename[f[2]] = kind == "map" ? f[4] : (kind == "prog" ? f[4] : "")
		etag[f[2]] = kind == "prog" ? f[5] : ""
		esize[f[2]] = kind == "btf" ? f[3] : ""
		eprog[f[2]] = kind == "link" ? f[4] : ""
		ebtf[f[2]] = cur_btf
		emap[f[2]] = cur_map
		next
	}
	$2 == cev || $2 == rev {
		# every record of this kind by the workload is one of ours
		if ($2 == cev && $4 == wpid && !($3 in mine))
			stray = stray " " $3
		if (!($3 in mine))
			next
		if ($2 == cev) {
			nc[$3]++; cseq[$3] = $1; ctime[$3] = $10
			cpid[$3] = $4; ctid[$3] = $5; ccomm[$3] = $6
			cname[$3] = $7; ctype[$3] = $8; ctag[$3] = $9; cdet[$3] = $11
			ncreate++
		} else {
			nr[$3]++; rseq[$3] = $1; rtime[$3] = $10
			rpid[$3] = $4; rcomm[$3] = $6
			rname[$3] = $7; rtype[$3] = $8; rtag[$3] = $9; rdet[$3] = $11
			nrel++
		}
	}
	END {
		c1 = pfx kind ": one " cev " and one " rev " per id"
		c2 = pfx kind ": " cev " before " rev
		c3 = pfx kind ": " cev (synth ? " marked synthesised" : " by the workload (pid, tid, comm)")
		c4 = pfx (kind == "btf" ? "btf: user BTF in both records" : \
		     (kind == "link" ? "link: type in both records" : \
		     (kind == "map" ? "map: type and name in both records" : \
		     "prog: type, name and tag in both records")))
		c5 = pfx kind ": resolved details"
		c6 = pfx kind ": exact counts (" n " " cev ", " n " " rev ", none stray)"
		if (relchk != "")
			relchk = pfx relchk
		add(c1, ""); add(c2, ""); add(c3, ""); add(c4, ""); add(c5, ""); add(c6, "")
		if (nid != n)
			add(c6, nid " ids in the ids file, want " n)
		if (ncreate != n || nrel != n)
			add(c6, ncreate + 0 " " cev " and " nrel + 0 " " rev " for our ids")
		if (stray != "")
			add(c6, "workload " cev " of unknown ids:" stray)
		for (i = 1; i <= nid; i++) {
			id = ids[i]
			if (nc[id] != 1 || nr[id] != 1) {
				add(c1, "id " id ": " nc[id] + 0 " " cev ", " nr[id] + 0 " " rev)
				continue
			}
			if (cseq[id] >= rseq[id] || ctime[id] > rtime[id])
				add(c2, "id " id ": " cev " at " ctime[id] ", " rev " at " rtime[id])
			if (synth && detail(cdet[id], "synthesised") != "true")
				add(c3, "id " id ": not marked synthesised: {" cdet[id] "}")
			else if (!synth && (cpid[id] != wpid || ctid[id] != wpid || ccomm[id] != "workload"))
				add(c3, "id " id ": pid/tid " cpid[id] "/" ctid[id] " comm " ccomm[id] ", want " wpid " workload")
			if (kind != "btf" && (ctype[id] != etype[id] || rtype[id] != etype[id]))
				add(c4, "id " id ": type " ctype[id] "/" rtype[id] ", want " etype[id])
			if (ename[id] != "" && (cname[id] != ename[id] || rname[id] != ename[id]))
				add(c4, "id " id ": name " cname[id] "/" rname[id] ", want " ename[id])
			if (etag[id] != "" && (ctag[id] != etag[id] || rtag[id] != etag[id]))
				add(c4, "id " id ": tag " ctag[id] "/" rtag[id] ", want " etag[id])
			if (kind == "btf" && (detail(cdet[id], "user") != "true" || detail(rdet[id], "user") != "true" || detail(cdet[id], "kernel") != ""))
				add(c4, "id " id ": not marked user BTF: {" cdet[id] "} / {" rdet[id] "}")
			d = cdet[id]
			if (detail(d, "unresolved") != "" || detail(rdet[id], "unresolved") != "")
				add(c5, "id " id ": unresolved")
			else if (!synth && detail(d, "synthesised") != "")
				add(c5, "id " id ": marked synthesised")
			else if (kind == "map" && (detail(d, "key") != 4 || detail(d, "value") != 8 || detail(d, "max_entries") != 1))
				add(c5, "id " id ": {" d "}, want key 4, value 8, max_entries 1")
			else if (kind == "map" && detail(d, "btf") != ebtf[id])
				add(c5, "id " id ": btf " detail(d, "btf") ", want " ebtf[id])
			else if (kind == "prog" && detail(d, "maps") != emap[id])
				add(c5, "id " id ": maps " detail(d, "maps") ", want " emap[id])
			else if (kind == "link" && detail(d, "prog") != eprog[id])
				add(c5, "id " id ": prog " detail(d, "prog") ", want " eprog[id])
			else if (kind == "link" && (synth || detail(d, "target") != "") && detail(d, "target") != "raw_tp sched_switch")
				add(c5, "id " id ": target \"" detail(d, "target") "\", want raw_tp sched_switch" (synth ? "" : " or none"))
			else if (kind == "btf" && detail(d, "size") != esize[id])
				add(c5, "id " id ": size " detail(d, "size") ", want " esize[id])
			if (kind == "link")
				targets = targets " " id ":" (detail(d, "target") == "" ? "none" : detail(d, "target"))
			if (relchk != "" && rpid[id] != wpid)
				add(relchk, "id " id ": " rev " from pid " rpid[id] " (" rcomm[id] "), want " wpid)
			from = from " " id ":" rpid[id] "/" rcomm[id]
		}
		printf "#\t%s%s: %s from (id:pid/comm)%s\n", pfx, kind, rev, from
		if (kind == "link")
			printf "#\t%slink: targets%s\n", pfx, targets
		if (relchk != "")
			add(relchk, "")
		for (i = 1; i <= nchk; i++)
			printf "%s\t%s\n", order[i], err[order[i]]
	}' "$IDS" "$TABLE" >"$tmp/check.$1"
	while IFS='	' read -r name msg; do
		case "$name" in
		"#")	echo "# $msg" ;;
		*)	result "$name" "$msg" ;;
		esac
	done <"$tmp/check.$1"
}

# Linux 6.1 releases a closed link and its program in the closing task:
# there LINK_RELEASE and PROG_UNLOAD carry the workload's pid (newer
# kernels free them from RCU callbacks).  MAP_FREE and BTF_UNLOAD come
# from whoever drops the last reference, often the kworker that frees the
# program: not checked.
rel_prog= rel_link=
case "$(uname -r)" in
6.1.*)	rel_prog="prog: PROG_UNLOAD by the workload (6.1 releases in task)"
	rel_link="link: LINK_RELEASE by the workload (6.1 releases in task)" ;;
esac

IDS=$ids TABLE=$tmp/table N=$ROUNDS WPID=$wpid PFX= SYNTH=0
check_kind prog PROG_LOAD PROG_UNLOAD "$rel_prog"

# Every program JITed and unJITed: one KSYMBOL register and unregister each.
if [ "$(cat /proc/sys/net/core/bpf_jit_enable 2>/dev/null)" = 0 ]; then
	skip "prog: KSYMBOL register/unregister" "JIT disabled"
else
	tag=$(awk '$1 == "prog" { print $5; exit }' "$ids")
	bad=$(awk -F '\t' -v sym="bpf_prog_${tag}_demo_prog" -v n="$ROUNDS" -v wpid="$wpid" '
		$2 == "KSYMBOL" && $7 == sym {
			if ($11 ~ /"unregister":true/) u++
			else { r++; if ($4 != wpid) p = p " " $4 }
		}
		END {
			if (r != n || u != n)
				print r + 0 " registered, " u + 0 " unregistered " sym ", want " n
			else if (p != "")
				print "registered by pids" p ", want " wpid
		}' "$tmp/table")
	result "prog: KSYMBOL register/unregister ($ROUNDS each)" "$bad"
fi

nobj=$(awk -F '\t' '$2 ~ /^(MAP|LINK|BTF)_/ { n++ } END { print n + 0 }' "$tmp/table")
if [ "$lacks" = 1 ]; then
	reason="kernel $(uname -r) lacks bpf_obj_event (record: kernel lacks bpf_obj_event)"
	for k in map link btf; do
		skip "$k: create and release records" "$reason"
	done
	if [ "$nobj" -eq 0 ]; then
		pass "no map/link/BTF records without bpf_obj_event"
	else
		fail "no map/link/BTF records without bpf_obj_event" "$nobj such records"
	fi
else
	check_kind map MAP_CREATE MAP_FREE ""
	check_kind link LINK_ATTACH LINK_RELEASE "$rel_link"
	check_kind btf BTF_LOAD BTF_UNLOAD ""
fi

# --- report ---------------------------------------------------------------

"$BPFREC" report -i "$data" >"$tmp/report" 2>"$tmp/report.err"
rc=$?
sed 's/^/# report: /' "$tmp/report"
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/report.err" ]; then
	pass "report exits 0 without warnings"
else
	fail "report exits 0 without warnings" "status $rc: $(head -n 2 "$tmp/report.err" | tr '\n' ' ')"
fi

if [ "$lacks" = 1 ]; then
	want_objs="$ROUNDS 0 0 0" state=off
else
	want_objs="$ROUNDS $ROUNDS $ROUNDS $ROUNDS" state=on
fi
row=$(awk -v wpid="$wpid" '
	/^Objects by creating process:/ { s = 1; next }
	/^$/ { s = 0 }
	s && $1 == wpid { print $2, $3, $4, $5, $6 }' "$tmp/report")
if [ "$row" = "workload $want_objs" ]; then
	pass "report: workload created $want_objs progs/maps/links/BTF"
else
	fail "report: workload created $want_objs progs/maps/links/BTF" "row '${row:-none}' for pid $wpid"
fi

# the kernel's own BTF existed at start, made by no task: vmlinux's, and
# that of each module loaded (the kselftests load a test module)
kernel_btfs=$(ls /sys/kernel/btf | wc -l)
if [ "$lacks" = 1 ]; then
	skip "report: vmlinux's BTF created by (kernel)" "no BTF records"
else
	row=$(awk '
		/^Objects by creating process:/ { s = 1; next }
		/^$/ { s = 0 }
		s && $1 == "-" && $2 == "(kernel)" { print $3, $4, $5, $6 }' "$tmp/report")
	alive=$(awk '/^Alive at the end/ { s = 1; next } s && $1 == "btf" && $3 == "vmlinux" { print $5, $6, $7, $8, $9 }' "$tmp/report")
	result "report: vmlinux's BTF created by (kernel), alive at the end" \
		"$([ "$row" = "0 0 0 $kernel_btfs" ] && [ "$alive" = "- (kernel) (existed at start)" ] ||
		   echo "row '$row' (want 0 0 0 $kernel_btfs), alive '$alive'")"
fi

if grep -q "map/link/btf records $state\$" "$tmp/report"; then
	pass "report: map/link/btf records $state"
else
	fail "report: map/link/btf records $state" "$(grep 'map/link/btf records' "$tmp/report")"
fi

if grep -q '^# lost records: 0 ' "$tmp/report"; then
	pass "report: no lost records"
else
	fail "report: no lost records" "$(grep '^# lost records' "$tmp/report")"
fi

# Kind/type rows: at least our objects created and destroyed (the recorder's
# own objects may add to them); none of our ids in the survivors.
bad=$(awk -v n="$ROUNDS" -v obj="$state" '
	/^Objects by kind and type:/ { s = 1; next }
	/^$/ { s = 0 }
	s && $2 == "raw_tracepoint" { c[$1] = $3; d[$1] = $4 }
	s && $1 == "map" && $2 == "array" { c["map"] = $3; d["map"] = $4 }
	s && $1 == "btf" { c["btf"] += $3; d["btf"] += $4 }
	END {
		k = obj == "on" ? "prog map link btf" : "prog"
		m = split(k, kk, " ")
		for (i = 1; i <= m; i++)
			if (c[kk[i]] < n || d[kk[i]] < n)
				printf "%s: %d created, %d destroyed, want >= %d; ", kk[i], c[kk[i]], d[kk[i]], n
	}' "$tmp/report")
result "report: objects by kind and type" "$bad"

bad=$(awk '
	FILENAME == ARGV[1] { if ($1 != "pid") mine[$1 " " $2] = 1; next }
	/^Alive at the end/ { s = 1; next }
	s && ($1 " " $2) in mine { printf "%s %s; ", $1, $2 }' "$ids" "$tmp/report")
result "report: none of the workload's objects alive at the end" "$bad"

# --- objects that exist before the recording starts ----------------------

at "pre-existing"

# The workload creates one round and holds it (-w); bpfrec record starts,
# synthesises the existing objects, then its command lets the workload
# release them and waits for the workload's "done" line.
pre=$tmp/pre
mkdir "$pre" && mkfifo "$pre/ctl" || { fail "pre-existing: setup"; finish; }
"$WORKLOAD" -n 1 -w -l "$pre/ids" <"$pre/ctl" >"$pre/wl.out" 2>&1 &
w2=$!
exec 3>"$pre/ctl"
# holds: the workload holds its objects, or is gone
holds() { grep -q '^link ' "$pre/ids" 2>/dev/null || ! kill -0 "$w2" 2>/dev/null; }
wait_until 600 holds
if ! grep -q '^link ' "$pre/ids" 2>/dev/null; then
	fail "pre-existing: workload holds its objects" "$(tr '\n' ' ' <"$pre/wl.out")"
	exec 3>&-
	kill "$w2" 2>/dev/null
	finish
fi
"$BPFREC" record -e bpf-events -o "$pre/rec.data" -- sh -c '
	echo go >"$1/ctl"
	i=0
	while ! grep -q "^done" "$1/ids"; do
		i=$((i + 1))
		[ $i -gt 600 ] && exit 1
		sleep 1
	done' sh "$pre" >"$pre/rec.out" 2>"$pre/rec.err"
rc=$?
exec 3>&-
wait "$w2"
wrc=$?
sed 's/^/# workload: /' "$pre/wl.out"
sed 's/^/# record: /' "$pre/rec.out" "$pre/rec.err"
if [ "$rc" -eq 0 ] && [ "$wrc" -eq 0 ]; then
	pass "pre-existing: record and workload exit 0"
else
	fail "pre-existing: record and workload exit 0" "record $rc, workload $wrc"
fi
"$BPFREC" script -i "$pre/rec.data" --json >"$pre/json" 2>"$pre/json.err"
rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$pre/json.err" ]; then
	pass "pre-existing: script --json exits 0 without warnings"
else
	fail "pre-existing: script --json exits 0 without warnings" "status $rc: $(head -n 2 "$pre/json.err" | tr '\n' ' ')"
fi
to_table "$pre/json" >"$pre/table"
IDS=$pre/ids TABLE=$pre/table N=1 PFX="pre-existing " SYNTH=1
WPID=$(awk '$1 == "pid" { print $2; exit }' "$pre/ids")
check_kind prog PROG_LOAD PROG_UNLOAD "$rel_prog"
if [ "$lacks" = 1 ]; then
	for k in map link btf; do
		skip "pre-existing $k: synthesised and release records" "$reason"
	done
else
	check_kind map MAP_CREATE MAP_FREE ""
	check_kind link LINK_ATTACH LINK_RELEASE "$rel_link"
	check_kind btf BTF_LOAD BTF_UNLOAD ""
fi

# The other parts, counted with the recorder's tests, each where it exists:
#   stat       the stat command
#   object     the --object tests
#   capture    the capture's paths, each forced
#   sampling   the profilers: samples in a BPF program, off-CPU time
#   describe   records that describe their objects: --capture=off, link detach and update
#   creator    a map's creator, with another task opening its maps by id
#   perf       perf with the perf tools follow-up, on the recording above and its own
#   libbpf-tools  Debian's execsnoop and opensnoop: every object they hold, with its creator
for part in stat hist object capture sampling describe creator perf libbpf-tools; do
	at "$part.sh"
	[ -f "$here/$part.sh" ] && . "$here/$part.sh"
done

at "end"
finish
