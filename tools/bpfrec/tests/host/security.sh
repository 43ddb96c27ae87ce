#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of what bpfrec, run as root, trusts (issue 28): each check is
# what an unprivileged user (nobody) or a crafted perf.data file could do.
#   - files: every file bpfrec writes is created fresh next to its name
#     and renamed over it at the end (never through a planted link, never
#     into a file someone else created), the previous one kept as
#     FILE.old, the previous one left as it was by a failed record;
#     --svg - is standard output; the default input is the newer file;
#     a file says whether it keeps kallsyms.
#   - the --bpf-counters registry in bpffs: a directory or pinned map
#     planted or tampered with, a lock held.
#   - the registry replaced by a pinned program or link; an entry naming
#     another program's link.
#   - crafted files: BTF, __data_loc fields, a queue and decompression
#     bomb (peak RSS bounded), MMAP paths to a FIFO, names with escapes
#     (BTF members, tracepoint fields, tasks).
#
#   BPFREC=path/to/bpfrec CRAFT=path/to/craft tests/host/security.sh
#
# Root on the running kernel; `nobody` through setpriv.
# Last line: "N passed, N failed, N skipped"; exit 1 if anything failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
BPFREC=${BPFREC:-$here/../../bpfrec}
CRAFT=${CRAFT:-$here/../../.output/craft}
PERF=${PERF:-/usr/bin/perf}

. "$here/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "host tests need root" >&2
	exit 1
fi
[ -x "$BPFREC" ] || { echo "missing $BPFREC: run 'make' first" >&2; exit 1; }

tmp=$(mktemp -d /tmp/bpfrec-security.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# as_nobody CMD...: CMD as the unprivileged user
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }

# owner_mode FILE: "user mode type" of FILE itself (a link is not followed)
owner_mode() { stat -c '%U %a %F' "$1" 2>/dev/null || echo missing; }

# A directory anyone may write to, sticky, as /tmp is.
shared=$tmp/shared
mkdir -m 1777 "$shared"

# ---- files ---------------------------------------------------------------

# A link planted by nobody at the name root records to: the file it points
# to is not written; the name gets a fresh file of root's, the link is
# moved aside as perf.data.old.
echo "root's own file" >"$tmp/victim"
as_nobody ln -s "$tmp/victim" "$shared/perf.data"
"$BPFREC" record -o "$shared/perf.data" -- true >/dev/null 2>"$tmp/err"
rc=$?
result "record -o through a planted link: the target untouched, a fresh file of root's" \
	"$([ $rc -eq 0 ] || echo "exit $rc: $(tail -1 "$tmp/err")"
	   echo "root's own file" | cmp -s - "$tmp/victim" || echo "the link's target was written"
	   [ "$(owner_mode "$shared/perf.data")" = "root 600 regular file" ] ||
		echo "perf.data is $(owner_mode "$shared/perf.data")"
	   [ -L "$shared/perf.data.old" ] || echo "the link was not kept as perf.data.old")"

# A file nobody made (mode 0666) at the name: a sampled recording (with
# the kallsyms, addresses included) must not be readable by nobody.
as_nobody sh -c "umask 0; : >'$shared/pre.data'; echo mine >'$shared/pre.data'"
"$BPFREC" record -e cpu-clock -o "$shared/pre.data" -- true >/dev/null 2>"$tmp/err"
rc=$?
result "record -o over a file nobody made: root's 0600 file, nobody cannot read it" \
	"$([ $rc -eq 0 ] || echo "exit $rc: $(tail -1 "$tmp/err")"
	   [ "$(owner_mode "$shared/pre.data")" = "root 600 regular file" ] ||
		echo "pre.data is $(owner_mode "$shared/pre.data")"
	   as_nobody cat "$shared/pre.data" >/dev/null 2>&1 && echo "nobody read the recording"
	   echo mine | cmp -s - "$shared/pre.data.old" ||
		echo "nobody's file was not kept as pre.data.old")"

# stat -o and report --svg: the same through a planted link.
echo "root's own file" >"$tmp/victim2"
as_nobody ln -s "$tmp/victim2" "$shared/stat.data"
"$BPFREC" stat --all-progs -o "$shared/stat.data" -- true >/dev/null 2>"$tmp/err"
rc=$?
result "stat -o through a planted link: the target untouched" \
	"$([ $rc -eq 0 ] || echo "exit $rc: $(tail -1 "$tmp/err")"
	   echo "root's own file" | cmp -s - "$tmp/victim2" || echo "the link's target was written"
	   [ "$(owner_mode "$shared/stat.data")" = "root 600 regular file" ] ||
		echo "stat.data is $(owner_mode "$shared/stat.data")")"

"$BPFREC" record -e cpu-clock -o "$tmp/prof.data" -- sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done' \
	>/dev/null 2>&1
echo "root's own file" >"$tmp/victim3"
as_nobody ln -s "$tmp/victim3" "$shared/g.svg"
"$BPFREC" report -i "$tmp/prof.data" --svg "$shared/g.svg" >/dev/null 2>"$tmp/err"
rc=$?
result "report --svg through a planted link: the target untouched" \
	"$([ $rc -eq 0 ] || echo "exit $rc: $(tail -1 "$tmp/err")"
	   echo "root's own file" | cmp -s - "$tmp/victim3" || echo "the link's target was written"
	   [ "$(owner_mode "$shared/g.svg")" = "root 600 regular file" ] ||
		echo "g.svg is $(owner_mode "$shared/g.svg")"
	   grep -q '<svg' "$shared/g.svg" 2>/dev/null || echo "no SVG written")"

# --svg - is standard output, not a file named "-".
(cd "$tmp" && "$BPFREC" report -i prof.data --svg - >"$tmp/stdout.svg" 2>"$tmp/err")
rc=$?
result "report --svg -: the graph on standard output, no file named -" \
	"$([ $rc -eq 0 ] || echo "exit $rc: $(tail -1 "$tmp/err")"
	   head -c 200 "$tmp/stdout.svg" | grep -q '<svg' || echo "stdout: $(head -c 80 "$tmp/stdout.svg")"
	   [ ! -e "$tmp/-" ] || echo "a file named - was written")"

# A failed record leaves the previous file as it was, and nothing else.
mkdir "$tmp/keep"
"$BPFREC" record -o "$tmp/keep/k.data" -- true >/dev/null 2>&1
before=$(sha1sum <"$tmp/keep/k.data")
"$BPFREC" record -o "$tmp/keep/k.data" -- "$tmp/no such command" >/dev/null 2>"$tmp/err"
rc=$?
result "record of a command that cannot run: exit 127, the previous file kept" \
	"$([ $rc -eq 127 ] || echo "exit $rc"
	   grep -q 'cannot run' "$tmp/err" || echo "not said: $(tail -1 "$tmp/err")"
	   [ "$(sha1sum <"$tmp/keep/k.data")" = "$before" ] || echo "k.data changed"
	   [ "$(ls "$tmp/keep")" = k.data ] || echo "left: $(ls "$tmp/keep" | tr '\n' ' ')")"
OBJ=${OBJS:-$here/../../.output}/tests/host/objects/reject_second.bpf.o
if [ -f "$OBJ" ]; then
	"$BPFREC" record --object "$OBJ" -o "$tmp/keep/k.data" -- true >/dev/null 2>"$tmp/err"
	rc=$?
	result "record whose object the verifier rejects: exit 1, the previous file kept" \
		"$([ $rc -eq 1 ] || echo "exit $rc"
		   [ "$(sha1sum <"$tmp/keep/k.data")" = "$before" ] || echo "k.data changed"
		   [ "$(ls "$tmp/keep")" = k.data ] || echo "left: $(ls "$tmp/keep" | tr '\n' ' ')")"
else
	skip "record whose object the verifier rejects" "$OBJ not built (make host-test builds it)"
fi

# A recording that ran replaces the file; the previous one is FILE.old.
"$BPFREC" record -o "$tmp/keep/k.data" -- true >/dev/null 2>&1
result "a second record: the first kept as FILE.old" \
	"$([ "$(sha1sum <"$tmp/keep/k.data.old" 2>/dev/null)" = "$before" ] || echo "k.data.old is not the first"
	   [ "$(sha1sum <"$tmp/keep/k.data")" != "$before" ] || echo "k.data was not replaced")"

# A FIFO nobody made at the name: not written into (it would hand them
# the recording).
as_nobody mkfifo -m 666 "$shared/fifo.data"
timeout 20 "$BPFREC" record -o "$shared/fifo.data" -- true >/dev/null 2>"$tmp/err" </dev/null
rc=$?
result "record -o into nobody's FIFO: refused" \
	"$([ $rc -eq 1 ] || echo "exit $rc$([ $rc -eq 124 ] && echo ' (hung writing into it)')"
	   [ "$(cat "$tmp/err")" = "bpfrec record: cannot write $shared/fifo.data: a FIFO owned by another user" ] ||
		echo "said: $(head -c 200 "$tmp/err")")"

# The default input is the newer of bpfrec.data and perf.data, and said.
mkdir "$tmp/dflt"
cp "$tmp/keep/k.data" "$tmp/dflt/bpfrec.data"
cp "$tmp/prof.data" "$tmp/dflt/perf.data"
touch -d '1 minute ago' "$tmp/dflt/bpfrec.data"
(cd "$tmp/dflt" && "$BPFREC" report --sort sym >"$tmp/out" 2>"$tmp/err")
rc=$?
result "the default input: the newer perf.data, said on stderr" \
	"$([ $rc -eq 0 ] || echo "exit $rc: $(tail -1 "$tmp/err")"
	   grep -qx 'bpfrec report: reading perf.data, newer than bpfrec.data (-i chooses)' "$tmp/err" ||
		echo "said: $(head -1 "$tmp/err")"
	   grep -q 'cpu-clock' "$tmp/out" || echo "not the profile of perf.data")"

# The file says whether it keeps kallsyms (their addresses tell where the
# kernel is): a sampled recording does, and holds them; a recording of the
# lifecycle alone does not, and holds none.
"$BPFREC" report --header-only -i "$tmp/prof.data" >"$tmp/h1" 2>"$tmp/err"
rc=$?
"$BPFREC" report --header-only -i "$tmp/keep/k.data" >"$tmp/h2" 2>>"$tmp/err"
rc2=$?
result "report --header-only says whether the file keeps kallsyms, and it is so" \
	"$([ $rc -eq 0 ] && [ $rc2 -eq 0 ] || echo "exit $rc, $rc2: $(head -c 200 "$tmp/err")"
	   grep -qx '# kallsyms: kept in the file, with their addresses (to name the kernel frames of samples)' "$tmp/h1" ||
		echo "sampled: $(grep -v '^# bpfrec report' "$tmp/h1" | head -c 300)"
	   grep -qx '# kallsyms: not kept in the file' "$tmp/h2" ||
		echo "lifecycle: $(head -c 400 "$tmp/h2")"
	   LC_ALL=C grep -aq ' [Tt] _text$' "$tmp/prof.data" || echo "no kallsyms in the sampled file"
	   ! LC_ALL=C grep -aq ' [Tt] _text$' "$tmp/keep/k.data" || echo "kallsyms in the lifecycle file")"

# ---- the --bpf-counters registry -------------------------------------------

mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
reg=/sys/fs/bpf/bpfrec-security-$$
rm -rf "$reg"

# regline: the refusal of the registry, as bpfrec says it
regline() { echo "bpfrec stat: --bpf-counters: $1: not trusted; remove it (rm -r $reg) or choose another --bpf-registry"; }

# A session of the whole machine in the background until Ctrl-C: $bg,
# waited for until it owns its perf events (one per CPU), so registered
owns_events() { [ "$(ls -l "/proc/$1/fd" 2>/dev/null | grep -c perf_event)" -eq "$(nproc)" ]; }
bperf_bg() {
	"$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e cpu-clock -a 3600 >/dev/null 2>"$tmp/bg.err" &
	bg=$!
	wait_until 60 owns_events $bg
}
# holding PID: the flock of PID holds its lock (it has forked its command, sleep)
holding() { ps -o comm= --ppid "$1" | grep -qx sleep; }

# A registry directory nobody made (and locks): refused at once, not waited on.
as_nobody mkdir "$reg"
as_nobody flock "$reg" sleep 30 &
holder=$!
wait_until 60 holding $holder
timeout 20 "$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e cpu-clock -a 1 >/dev/null 2>"$tmp/err"
rc=$?
result "a registry directory nobody made and locks: refused at once, how to remove it said" \
	"$([ $rc -eq 1 ] || echo "exit $rc"
	   [ "$(cat "$tmp/err")" = "$(regline "$reg is not owned by root")" ] || echo "said: $(head -c 300 "$tmp/err")")"
kill $holder 2>/dev/null; wait $holder 2>/dev/null
rm -rf "$reg"

# A lock held by a session that never lets go: the next one gives up.
mkdir -m 700 "$reg"
flock "$reg" sleep 90 &
holder=$!
wait_until 60 holding $holder
timeout 80 "$BPFREC" stat --bpf-counters --bpf-registry "$reg" --bpf-lock-timeout 20 -e cpu-clock -a 1 \
	>/dev/null 2>"$tmp/err"
rc=$?
result "a registry locked for ever: the holder named after 5 s, one line at --bpf-lock-timeout 20, exit 1" \
	"$([ $rc -eq 1 ] || echo "exit $rc"
	   [ "$(cat "$tmp/err")" = "bpfrec stat: --bpf-counters: waiting for the lock of $reg, which pid $holder (flock) holds
bpfrec stat: --bpf-counters: $reg stayed locked for 20 s by pid $holder (flock); stop it, or remove the registry" ] ||
		echo "said: $(head -c 400 "$tmp/err")")"
kill $holder 2>/dev/null; wait $holder 2>/dev/null
rm -rf "$reg"

# The registry goes with its last session.
bperf_bg
"$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e cpu-clock -a 1 >/dev/null 2>"$tmp/err"
rc=$?
left=$(ls -A "$reg" 2>/dev/null | tr '\n' ' ')
kill -INT $bg
wait $bg
rc2=$?
result "the registry stays while a session runs, and goes with the last one" \
	"$([ $rc -eq 0 ] && [ $rc2 -eq 0 ] || echo "exit $rc, $rc2: $(head -c 200 "$tmp/err")"
	   [ "$left" = "registry " ] || echo "during the first session: '$left'"
	   [ ! -e "$reg" ] || echo "left after the last: $(ls -A "$reg" | tr '\n' ' ')")"

# The key size of the registry (a perf_event_attr), from a live one.
bperf_bg
keysize=$(bpftool -j map show pinned "$reg/registry" | python3 -c 'import json,sys; print(json.load(sys.stdin)["bytes_key"])')
key=$(bpftool -j map dump pinned "$reg/registry" |
	python3 -c 'import json,sys; print(" ".join(x[2:] for x in json.load(sys.stdin)[0]["key"]))')
# A tampered entry: its diff map is another map (the registry itself).
regid=$(bpftool -j map show pinned "$reg/registry" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
value=$(bpftool -j map dump pinned "$reg/registry" | python3 -c '
import json, struct, sys
v = bytes(int(x, 16) for x in json.load(sys.stdin)[0]["value"])
link, diff, events, owner = struct.unpack("<4I", v)
print(" ".join("%02x" % b for b in struct.pack("<4I", link, int(sys.argv[1]), events, owner)))' "$regid")
bpftool map update pinned "$reg/registry" key hex $key value hex $value
"$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e cpu-clock -a 1 >/dev/null 2>"$tmp/err"
rc=$?
kill -INT $bg
wait $bg
result "a registry entry naming a map not of a leader: refused, exit 1" \
	"$([ $rc -eq 1 ] || echo "exit $rc"
	   grep -qx "bpfrec stat: --bpf-counters: $reg/registry: the entry of cpu-clock names link [0-9]*, maps $regid and [0-9]*, which are not a leader of bpfrec's: not trusted; remove it (rm -r $reg)" "$tmp/err" ||
		echo "said: $(head -c 300 "$tmp/err")")"
rm -rf "$reg"

# A registry replaced by a map with 256-byte values (which the kernel
# would copy into a 16-byte entry): refused, never read.
mkdir -m 700 "$reg"
if [ -n "$keysize" ] && bpftool map create "$reg/registry" type hash key "$keysize" value 256 \
	entries 4 name bpfrec_bperf 2>"$tmp/err"; then
	bpftool map update pinned "$reg/registry" key hex $key value hex $(printf '00 %.0s' $(seq 256))
	"$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e cpu-clock -a 1 >/dev/null 2>"$tmp/err"
	rc=$?
	result "a registry map with 256-byte values: refused, exit 1" \
		"$([ $rc -eq 1 ] || echo "exit $rc"
		   [ "$(cat "$tmp/err")" = "bpfrec stat: --bpf-counters: $reg/registry is not bpfrec's counter registry (a hash map 'bpfrec_bperf', key $keysize, value 256 bytes): not trusted; remove it (rm -r $reg) or choose another --bpf-registry" ] ||
			echo "said: $(head -c 300 "$tmp/err")")"
else
	fail "a registry map with 256-byte values" "bpftool map create: $(cat "$tmp/err")"
fi
rm -rf "$reg"

# A program or a link pinned as the registry (bpf_obj_get() opens either):
# refused as what it is, never read as a map.
NOATTACH=${OBJS:-$here/../../.output}/tests/host/objects/no_attach.bpf.o
mkdir -m 700 "$reg"
if [ -f "$NOATTACH" ] && bpftool prog load "$NOATTACH" "$reg/registry" 2>"$tmp/err"; then
	timeout 20 "$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e cpu-clock -a 1 >/dev/null 2>"$tmp/err"
	rc=$?
	result "a program pinned as the registry: refused as a program, exit 1" \
		"$([ $rc -eq 1 ] || echo "exit $rc"
		   [ "$(cat "$tmp/err")" = "bpfrec stat: --bpf-counters: $reg/registry is a pinned program, not bpfrec's counter registry (a map): not trusted; remove it (rm -r $reg) or choose another --bpf-registry" ] ||
			echo "said: $(head -c 300 "$tmp/err")")"
else
	skip "a program pinned as the registry" "$NOATTACH not built or not loaded: $(head -c 200 "$tmp/err")"
fi
rm -rf "$reg"
# the link of a live leader (the first u32 of its entry), pinned as the
# registry of another directory
reg2=$reg-link
rm -rf "$reg2"
bperf_bg
link=$(bpftool -j map dump pinned "$reg/registry" | python3 -c '
import json, struct, sys
print(struct.unpack("<I", bytes(int(x, 16) for x in json.load(sys.stdin)[0]["value"][:4]))[0])')
mkdir -m 700 "$reg2"
bpftool link pin id "$link" "$reg2/registry"
timeout 20 "$BPFREC" stat --bpf-counters --bpf-registry "$reg2" -e cpu-clock -a 1 >/dev/null 2>"$tmp/err"
rc=$?
kill -INT $bg
wait $bg
result "a link pinned as the registry: refused as a link, exit 1" \
	"$([ $rc -eq 1 ] || echo "exit $rc"
	   [ "$(cat "$tmp/err")" = "bpfrec stat: --bpf-counters: $reg2/registry is a pinned link, not bpfrec's counter registry (a map): not trusted; remove it (rm -r $reg2) or choose another --bpf-registry" ] ||
		echo "said: $(head -c 300 "$tmp/err")")"
rm -rf "$reg" "$reg2"

# A registry entry naming the link of another program (a tracepoint
# program of an --object recording), the leader's maps kept: refused,
# the program never run.
EXECOBJ=${OBJS:-$here/../../.output}/tests/host/objects/exec_events.bpf.o
# link_of NAME: the id of the link of the program named NAME
link_of() {
	bpftool -j link list | python3 -c '
import json, subprocess, sys
for l in json.load(sys.stdin):
    p = json.loads(subprocess.run(["bpftool", "-j", "prog", "show", "id", str(l["prog_id"])],
                                  capture_output=True).stdout or "{}")
    if p.get("name") == sys.argv[1]:
        print(l["id"])
        break' "$1"
}
has_link() { [ -n "$(link_of "$1")" ]; }
if [ -f "$EXECOBJ" ]; then
	"$BPFREC" record --object "$EXECOBJ" -o "$tmp/obj.data" -- sleep 60 >/dev/null 2>&1 &
	objrec=$!
	wait_until 60 has_link exec
	theirs=$(link_of exec)
	bperf_bg
	value=$(bpftool -j map dump pinned "$reg/registry" | python3 -c '
import json, struct, sys
v = bytes(int(x, 16) for x in json.load(sys.stdin)[0]["value"])
link, diff, events, owner = struct.unpack("<4I", v)
print(" ".join("%02x" % b for b in struct.pack("<4I", int(sys.argv[1]), diff, events, owner)))' "$theirs")
	bpftool map update pinned "$reg/registry" key hex $key value hex $value
	"$BPFREC" stat --bpf-counters --bpf-registry "$reg" -e cpu-clock -a 1 >/dev/null 2>"$tmp/err"
	rc=$?
	kill -INT $bg
	wait $bg
	kill -INT $objrec
	wait $objrec
	result "a registry entry naming another program's link: refused, exit 1" \
		"$([ -n "$theirs" ] || echo "no link of the program exec"
		   [ $rc -eq 1 ] || echo "exit $rc"
		   grep -qx "bpfrec stat: --bpf-counters: $reg/registry: the entry of cpu-clock names link $theirs, maps [0-9]* and [0-9]*, which are not a leader of bpfrec's: not trusted; remove it (rm -r $reg)" "$tmp/err" ||
			echo "said: $(head -c 300 "$tmp/err")")"
	rm -rf "$reg"
else
	skip "a registry entry naming another program's link" "$EXECOBJ not built (make host-test builds it)"
fi

# bpfrec mounts a bpffs that only root may use (in a mount namespace of
# its own, so that the machine's stays).
if command -v unshare >/dev/null; then
	unshare -m sh -c 'umount /sys/fs/bpf 2>/dev/null; "$0" stat --bpf-counters 1 >/dev/null 2>&1
		stat -c %a /sys/fs/bpf' "$BPFREC" >"$tmp/mode" 2>&1
	result "the bpffs bpfrec mounts: mode 0700 (and sticky)" \
		"$([ "$(cat "$tmp/mode")" = 1700 ] || echo "mode $(cat "$tmp/mode")")"
else
	skip "the bpffs bpfrec mounts" "unshare missing"
fi

# ---- --object: pins and --set ------------------------------------------------

PINNED=${OBJS:-$here/../../.output}/tests/host/objects/pinned.bpf.o
if [ -f "$PINNED" ]; then
	# A map pinned by name is pinned in bpfrec's own directory, never at
	# /sys/fs/bpf/NAME (where someone else's map would be used), and is
	# gone at exit.
	rm -f /sys/fs/bpf/bpfrec_sec_pin
	"$BPFREC" record --object "$PINNED" -o "$tmp/pin.data" -- sh -c '/bin/true' >/dev/null 2>"$tmp/err"
	rc=$?
	result "--object with a map pinned by name: nothing left in /sys/fs/bpf" \
		"$([ $rc -eq 0 ] || echo "exit $rc: $(tail -1 "$tmp/err")"
		   [ ! -e /sys/fs/bpf/bpfrec_sec_pin ] || echo "/sys/fs/bpf/bpfrec_sec_pin left"
		   ls -d /sys/fs/bpf/bpfrec-pins-* 2>/dev/null)"
	# a map pinned there before by someone else is not used
	bpftool map create /sys/fs/bpf/bpfrec_sec_pin type array key 4 value 8 entries 1 name bpfrec_sec_pin
	theirs=$(bpftool -j map show pinned /sys/fs/bpf/bpfrec_sec_pin | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
	chown nobody /sys/fs/bpf/bpfrec_sec_pin
	"$BPFREC" record --object "$PINNED" -o "$tmp/pin.data" -- sh -c '/bin/true' >/dev/null 2>"$tmp/err"
	rc=$?
	# the maps of the program, as its PROG_LOAD says
	used=$("$BPFREC" script -i "$tmp/pin.data" --json 2>/dev/null | python3 -c '
import json, sys
for l in sys.stdin:
    e = json.loads(l)
    if e.get("event") == "PROG_LOAD" and e.get("name") == "count_exec":
        print(e["details"]["maps"].replace(",", " "))')
	result "--object: a map pinned at its name by someone else is not used" \
		"$([ $rc -eq 0 ] || echo "exit $rc: $(tail -1 "$tmp/err")"
		   [ -n "$used" ] || echo "no program count_exec in the recording"
		   case " $used " in *" $theirs "*) echo "the program used map $theirs, theirs";; esac)"
	rm -f /sys/fs/bpf/bpfrec_sec_pin
	# --set of a 16-byte variable: refused, not read past an 8-byte number
	one_line "--set of a 16-byte integer: refused" 2 \
		"bpfrec record: --set wide: 'wide' is a 16-byte integer: only integers of 1 to 8 bytes can be set" \
		record --object "$PINNED" --set wide=5 -o "$tmp/pin.data" -- true
else
	skip "--object pins and --set" "$PINNED not built (make host-test builds it)"
fi

# ---- crafted files -----------------------------------------------------------

# read_ok NAME FILE CMD...: `bpfrec CMD -i FILE` exits 0 within 20 s (no
# crash, no hang); its output in $tmp/out, its stderr in $tmp/err
read_ok() {
	local name=$1 file=$2 rc
	shift 2
	timeout 20 "$BPFREC" "$@" -i "$file" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] || echo "$name: exit $rc$([ $rc -eq 124 ] && echo ' (hung)')$([ $rc -ge 128 ] && echo ' (crashed)'): $(head -c 200 "$tmp/err")"
}

# no_escapes FILE: FILE has no ESC, BEL nor C1 control (raw or UTF-8)
no_escapes() {
	LC_ALL=C grep -q "$(printf '[\033\007\200-\237]')" "$1" && echo "an escape reached the output: $(cat -v "$1" | head -c 200)"
	LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1" && echo "a UTF-8 C1 control reached the output"
}

if [ -x "$CRAFT" ]; then
	c=$tmp/crafted
	mkdir "$c"
	for k in btf-type btf-size btf-names dataloc comm; do
		"$CRAFT" $k "$c/$k.data" || fail "craft $k"
	done
	# BTF whose struct names a type that does not exist, or is larger than
	# its struct, or loops: shown in hex, as a record without BTF
	for k in btf-type btf-size; do
		result "script of a file whose BTF is bad ($k): the record in hex" \
			"$(read_ok script "$c/$k.data" script
			   grep -q 'bpf-output .* rec  *raw .*data=2a00000041414141' "$tmp/out" ||
				echo "shown: $(tail -1 "$tmp/out" | cut -c 1-200)")"
	done
	result "script of BTF member names with escapes: escaped" \
		"$(read_ok script "$c/btf-names.data" script; no_escapes "$tmp/out"
		   grep -qF '\x1b[2Jclear=42 csi\xc2\x9bx=1094795585' "$tmp/out" ||
			echo "shown: $(tail -1 "$tmp/out" | cat -v | cut -c 1-200)")"
	# __data_loc beyond the record; a char array without NUL at its end
	result "script of a __data_loc field pointing past the record: said, not read" \
		"$(read_ok script "$c/dataloc.data" script
		   grep -q 'msg=(out of the record) name=ABCD$' "$tmp/out" ||
			echo "shown: $(tail -1 "$tmp/out" | cat -v | cut -c 1-200)")"
	# bpfrec hands libtraceevent no format with control bytes (so the
	# fields are not shown); were it parsed, the name would be escaped
	# (tests/unit/test_safety.c)
	"$CRAFT" tp-names "$c/tp-names.data" || fail "craft tp-names"
	result "script of a tracepoint field named with escapes: escaped, or not shown" \
		"$(read_ok script "$c/tp-names.data" script; no_escapes "$tmp/out"
		   read_ok script "$c/tp-names.data" script --json; no_escapes "$tmp/out"
		   read_ok script "$c/tp-names.data" script
		   line=$(grep ' test:tp ' "$tmp/out")
		   case "$line" in
		   *'ip=0xffffffff81000100 fields=(no format in the file)') ;;
		   *' \x1b[2J\xc2\x9bmsg=13107212 name=ABCD') ;;
		   *) echo "shown: $(echo "$line" | cat -v | cut -c 1-200)";;
		   esac)"
	result "script and report of a task named with escapes and C1 controls: escaped" \
		"$(read_ok script "$c/comm.data" script; no_escapes "$tmp/out"
		   read_ok report "$c/comm.data" report --sort comm; no_escapes "$tmp/out"
		   grep -qF '\x1b]0;x\x07\x9b\xc2\x9b' "$tmp/out" || echo "report: $(grep % "$tmp/out" | cat -v | head -c 200)")"
	# a mapping of a FIFO nobody made, and of a device: not opened blocking
	as_nobody mkfifo -m 666 "$shared/trap.fifo"
	"$CRAFT" mmap "$c/fifo.data" "$shared/trap.fifo"
	"$CRAFT" mmap "$c/dev.data" /dev/zero
	result "script and report of samples in a mapped FIFO or device: no hang" \
		"$(read_ok script "$c/fifo.data" script; read_ok report "$c/fifo.data" report
		   read_ok script "$c/dev.data" script)"
	# 63 KB of compressed records that expand to 384 MiB, no round ends:
	# the queue is bounded (64 MiB), so is peak RSS
	"$CRAFT" bomb "$c/bomb.data" 384
	for cmd in script report; do
		/usr/bin/time -f %M -o "$tmp/rss" timeout 120 "$BPFREC" $cmd -i "$c/bomb.data" \
			>/dev/null 2>"$tmp/err"
		rc=$?
		rss=$(tail -1 "$tmp/rss")
		result "$cmd of a decompression and queue bomb ($(stat -c %s "$c/bomb.data") bytes, 384 MiB expanded): peak RSS $((rss / 1024)) MiB, within 256 MiB" \
			"$([ $rc -eq 0 ] || echo "exit $rc: $(head -c 200 "$tmp/err")"
			   [ "$rss" -le $((256 * 1024)) ] || echo "peak RSS $rss KiB")"
	done
else
	skip "crafted files" "$CRAFT not built (make host-test builds it)"
fi

if [ $skipped -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ $failed -eq 0 ]
