# SPDX-License-Identifier: GPL-2.0
#
# Recordings cut short, sourced by run.sh: a recorder killed with SIGKILL
# during a storm, and one whose disk fills up (a small tmpfs).  The facts
# are in the data as they are learnt: every PROG_LOAD that reached the
# file has its name, type and tag, bpfrec says the recording did not
# finish, and Linux perf still reads the file.  A disk that fills up ends
# the recording with an error, and what reached the disk is renamed into
# place.
#
# A PROG_LOAD whose facts are missing is shown unresolved, as one is when
# the capture lost it, which must not excuse it here: the capture's buffer
# (--capture-size 64, MiB) holds the facts of all 20000 programs (about
# 1.1 KiB each) even if the recorder never drained it, so none is lost and
# every PROG_LOAD of the file must be named.  Were the facts not written
# before their records, those cut off with the file would be unresolved.

# storm_named FILE LIST: "loads named unresolved" of the storm's PROG_LOADs in FILE
storm_named() {
	"$BPFREC" script -i "$1" --json 2>"$tmp/cut.err" |
		python3 -c '
import json, sys
truth = {}
for l in open(sys.argv[1]):
    # the storm killed with its recorder may leave its last line cut
    # anywhere, even inside the tag: only whole lines are the truth
    f = l.split()
    if l.endswith("\n") and len(f) == 4:
        truth[int(f[0])] = (f[1], f[3])
loads = named = unresolved = 0
for l in sys.stdin:
    e = json.loads(l)
    if e["event"] != "PROG_LOAD" or e["id"] not in truth:
        continue
    loads += 1
    name, tag = truth[e["id"]]
    named += e.get("name") == name and e.get("tag") == tag and bool(e.get("type"))
    unresolved += e.get("details", {}).get("unresolved", False) is True
print(loads, named, unresolved)' "$2"
}

# perf_loads FILE: PROG_LOAD records Linux perf reads in FILE, or "failed"
perf_loads() {
	"$PERF" script --show-bpf-events -i "$1" >"$tmp/perf.out" 2>"$tmp/perf.err" &&
		grep -c 'PERF_RECORD_BPF_EVENT type 1,' "$tmp/perf.out" || echo failed
}

# SIGKILL during a storm of 20000 programs, once a part is in the file.
# The recording is written to killed.data.partial.XXXXXX and renamed at
# the end (util/out_file.h): killed, it stays under that name, with the
# previous killed.data untouched.
mkdir "$tmp/kill"
echo previous >"$tmp/kill/killed.data"
"$BPFREC" record --capture-size 64 -o "$tmp/kill/killed.data" -- "$STORM" -n 20000 -p killed -l "$tmp/killed.list" \
	>/dev/null 2>"$tmp/killed.err" &
pid=$!
i=0
partial=
while [ "$(stat -c %s "$partial" 2>/dev/null || echo 0)" -lt 1000000 ] && [ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1))
	partial=$(ls "$tmp/kill/killed.data.partial."* 2>/dev/null)
done
storm=$(pgrep -P $pid)
kill -KILL $pid
wait $pid 2>/dev/null
[ -n "$storm" ] && kill -TERM $storm 2>/dev/null
read -r loads named unresolved < <(storm_named "$partial" "$tmp/killed.list")
perf=$(perf_loads "$partial")
if [ "${loads:-0}" -gt 0 ] && [ "$named" -eq "$loads" ] && [ "$unresolved" -eq 0 ] &&
   grep -q 'recording not finished' "$tmp/cut.err" && [ "$perf" != failed ] &&
   [ "$(cat "$tmp/kill/killed.data")" = previous ]; then
	pass "SIGKILL in a storm: all $loads PROG_LOADs in ${partial##*/} named, not finished said, perf reads it, the previous file kept"
else
	fail "SIGKILL in a storm" "$named of ${loads:-0} named in '${partial##*/}', $unresolved unresolved, perf: $perf, script: $(head -c 200 "$tmp/cut.err"), killed.data: $(head -c 20 "$tmp/kill/killed.data")"
fi

# A disk that fills up: a 1 MiB tmpfs.
mkdir -p "$tmp/small"
if mount -t tmpfs -o size=1m tmpfs "$tmp/small" 2>/dev/null; then
	"$BPFREC" record --capture-size 64 -o "$tmp/small/full.data" -- "$STORM" -n 20000 -p full -l "$tmp/full.list" \
		>/dev/null 2>"$tmp/full.err"
	rc=$?
	read -r loads named unresolved < <(storm_named "$tmp/small/full.data" "$tmp/full.list")
	perf=$(perf_loads "$tmp/small/full.data")
	if [ $rc -eq 1 ] && grep -q 'No space left on device' "$tmp/full.err" &&
	   [ "${loads:-0}" -gt 0 ] && [ "$named" -eq "$loads" ] && [ "$unresolved" -eq 0 ] &&
	   grep -q 'recording not finished' "$tmp/cut.err" && [ "$perf" != failed ]; then
		pass "full disk: exit 1 said, all $loads PROG_LOADs in the file named, perf reads it"
	else
		fail "full disk" "exit $rc, $named of ${loads:-0} named, $unresolved unresolved, perf: $perf: $(tr '\n' ' ' <"$tmp/full.err")"
	fi
	umount "$tmp/small"
else
	skip "full disk" "cannot mount a tmpfs"
fi
