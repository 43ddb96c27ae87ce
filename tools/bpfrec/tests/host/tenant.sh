#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# One tenant's objects (record --cgroup, --exe), and legacy cgroup
# attachments, on the running kernel through the capture's syscall path.
#
# Two tenants: copies of the lifecycle test's loader at two random paths,
# one run in a cgroup below tenant A's, one in tenant B's cgroup.  Each
# creates two maps, loads a program and attaches it to its cgroup with a
# link; a third binary, in neither cgroup, detaches both links.  Recorded
# with --cgroup A, the file has A's objects and every record of them (the
# detach named after the third binary), and nothing of B's or of any
# other task on the machine: no record of B's ids, no KSYMBOL of B's
# program, no loader of B.  Recorded with --exe B, the other way round.
#
# Legacy attachments: a binary attaches a program to a cgroup with
# BPF_PROG_ATTACH, another, differently named, detaches it with
# BPF_PROG_DETACH; the file has a LINK_ATTACH and a LINK_DETACH marked
# legacy, with one id of bpfrec's, the program, the cgroup as target, and
# each binary named; with --exe of the first binary, both are still there.
# Bad paths for --cgroup and --exe are usage errors of one line.
#
# Environment: BPFREC (the binary), CGROUP_LINK (tests/lifecycle/cgroup-link).
set -u
. "$(dirname "$0")/lib.sh"
tmp=${KEEP_TMP:-$(mktemp -d)}
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cga= cgb=
cleanup() {
	[ -n "$cga" ] && rmdir "$cga/sub" "$cga" 2>/dev/null
	[ -n "$cgb" ] && rmdir "$cgb" 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT

finish() {
	echo "tenant: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit
}

# bad input: one line, exit 2, before anything starts
bad() {
	"$BPFREC" record -o "$tmp/bad.data" "$@" -- true >"$tmp/bad.out" 2>"$tmp/bad.err"
	echo "$?|$(cat "$tmp/bad.err")"
}
result "tenant --cgroup not a cgroup" "$(got=$(bad --cgroup /tmp); [ "$got" = "2|bpfrec record: --cgroup: '/tmp' is not a cgroup v2 directory (see bpfrec record --help)" ] || echo "$got")"
result "tenant --cgroup missing" "$(got=$(bad --cgroup /nonexistent-$$); [ "$got" = "2|bpfrec record: --cgroup: '/nonexistent-$$' is not a cgroup v2 directory (see bpfrec record --help)" ] || echo "$got")"
result "tenant --exe not executable" "$(got=$(bad --exe /etc/passwd); [ "$got" = "2|bpfrec record: --exe: '/etc/passwd' is not an executable file (see bpfrec record --help)" ] || echo "$got")"
result "tenant --exe a directory" "$(got=$(bad --exe /usr/bin); [ "$got" = "2|bpfrec record: --exe: '/usr/bin' is not an executable file (see bpfrec record --help)" ] || echo "$got")"
result "tenant --exe with --capture=off" "$(got=$(bad --exe /bin/true --capture=off); [ "$got" = "2|bpfrec record: --cgroup and --exe need the capture, which names who created each object: not with --capture=off" ] || echo "$got")"

if [ -z "$cgroot" ]; then
	skip "tenant" "no cgroup v2 hierarchy is mounted"
	finish
fi

r=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
mkdir -p "$tmp/a-$r" "$tmp/.b-$r/x"
la="$tmp/a-$r/ld$r"
lb="$tmp/.b-$r/x/.ld$r"
det="$tmp/a-$r/undo$r"
for f in "$la" "$lb" "$det"; do cp "$CGROUP_LINK" "$f"; done
cga="$cgroot/bpfrec-tn-$r-a"
cgb="$cgroot/bpfrec-tn-$r-b"
mkdir "$cga" "$cga/sub" "$cgb" || { fail "tenant cgroups" "cannot create them in $cgroot"; finish; }

# Both tenants load and attach, the third binary detaches both links,
# then the loaders end, and the maps are gone: each step waits for the
# one before.
cat >"$tmp/two.sh" <<'SH'
set -e
T=$1 CGA=$2 CGB=$3 LA=$4 LB=$5 DET=$6
rm -f "$T/in-a" "$T/in-b" "$T/ids-a" "$T/ids-b"
mkfifo "$T/in-a" "$T/in-b"
sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" load "$1"' sh "$CGA/sub" "$LA" <"$T/in-a" >"$T/ids-a" &
sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" load "$1"' sh "$CGB" "$LB" <"$T/in-b" >"$T/ids-b" &
exec 3>"$T/in-a" 4>"$T/in-b"
while ! grep -q link= "$T/ids-a" || ! grep -q link= "$T/ids-b"; do sleep 0.02; done
for t in a b; do
	eval "$(tr ' ' '\n' <"$T/ids-$t" | sed "s/^/${t}_/")"
done
"$DET" detach "$a_link"
"$DET" detach "$b_link"
echo done >&3
echo done >&4
exec 3>&- 4>&-
wait
while bpftool map show id "$a_map" >/dev/null 2>&1 || bpftool map show id "$a_array" >/dev/null 2>&1 ||
      bpftool map show id "$b_map" >/dev/null 2>&1 || bpftool map show id "$b_array" >/dev/null 2>&1; do
	sleep 0.02
done
SH

# one recording per filter: $1 names it, the rest are its options
two() {
	name=$1
	shift
	"$BPFREC" record --capture=syscall -o "$tmp/$name.data" "$@" -- \
		sh "$tmp/two.sh" "$tmp" "$cga" "$cgb" "$la" "$lb" "$det" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	result "tenant record $name" "$([ $rc -ne 0 ] && echo "exit $rc: $(tail -3 "$tmp/$name.err")")"
	cp "$tmp/ids-a" "$tmp/$name.ids-a"
	cp "$tmp/ids-b" "$tmp/$name.ids-b"
	"$BPFREC" script -i "$tmp/$name.data" --json >"$tmp/$name.json" 2>"$tmp/$name.script.err"
	"$BPFREC" report -i "$tmp/$name.data" --by exe >"$tmp/$name.by-exe" 2>>"$tmp/$name.script.err"
	result "tenant script $name" "$([ -s "$tmp/$name.script.err" ] && head -c 300 "$tmp/$name.script.err")"
}

# Tenant KEEP's records, all of them, and nothing else: $1 the recording,
# $2 the kept tenant (a or b), $3 its loader, $4 the detacher, $5 the
# other tenant's loader, $6 the kept tenant's cgroup below the root.
check_two() {
	python3 - "$tmp" "$@" >"$tmp/$1.check" 2>&1 <<'PY'
import json, os, sys
T, name, keep, loader, det, other, cgroup = sys.argv[1:8]
loader, det, other = (os.path.realpath(p) for p in (loader, det, other))
drop = 'b' if keep == 'a' else 'a'
events = [json.loads(l) for l in open(f'{T}/{name}.json')]
def ids(t):
    return {k: int(v) for k, v in (kv.split('=') for kv in open(f'{T}/{name}.ids-{t}').read().split())}
kept, dropped = ids(keep), ids(drop)
bpf = [e for e in events if 'id' in e and e['event'] != 'KSYMBOL']

def one(event, id):
    found = [e for e in bpf if e['event'] == event and e['id'] == id]
    if len(found) != 1:
        print(f'{event} {id}: {len(found)} records, want 1')
        return {}
    return found[0]

def want(e, what, key, value):
    got = e.get(key) if key in ('comm', 'name') else e.get('details', {}).get(key)
    if e and got != value:
        print(f'{what}: {key} is {got!r}, want {value!r}')

# every record of the kept tenant's objects, each once, named as it was
for event, id in (('PROG_LOAD', kept['prog']), ('MAP_CREATE', kept['map']),
                  ('MAP_CREATE', kept['array']), ('LINK_ATTACH', kept['link'])):
    e = one(event, id)
    want(e, event, 'exe', loader)
    want(e, event, 'cgroup', cgroup)
for event, id in (('PROG_UNLOAD', kept['prog']), ('MAP_FREE', kept['map']),
                  ('MAP_FREE', kept['array']), ('LINK_RELEASE', kept['link'])):
    one(event, id)
want(one('LINK_ATTACH', kept['link']), 'LINK_ATTACH', 'target', 'cgroup ' + cgroup)
d = one('LINK_DETACH', kept['link'])
want(d, 'LINK_DETACH', 'exe', det)
want(d, 'LINK_DETACH', 'comm', os.path.basename(det)[:15])

# the other tenant's ids in no record; every object created in the file is the kept loader's
for e in bpf:
    kind = e['event'].split('_')[0]
    key = {'PROG': 'prog', 'LINK': 'link'}.get(kind)
    if key and e['id'] == dropped[key] or kind == 'MAP' and e['id'] in (dropped['map'], dropped['array']):
        print(f"{e['event']} {e['id']}: the other tenant's object is in the file")
    if e['event'] in ('PROG_LOAD', 'MAP_CREATE', 'LINK_ATTACH', 'BTF_LOAD'):
        if e['details'].get('exe') != loader:
            print(f"{e['event']} {e['id']} by {e['details'].get('exe')!r} (pid {e['pid']}): not the tenant's")
# the program's JIT image: its KSYMBOL and its removal, not the other's (same name and tag)
ks = [e for e in events if e['event'] == 'KSYMBOL' and e['name'].endswith('_lc_ingress')]
if len(ks) != 2 or [k['details'].get('unregister', False) for k in ks] != [False, True]:
    print(f'KSYMBOL of lc_ingress: {[(k["pid"], k["details"]) for k in ks]}, want one image added and removed')
# the executables report counts: the tenant's and the detacher, exactly
by = open(f'{T}/{name}.by-exe').read().split('\n')
rows = by[by.index('Objects by executable:') + 2:] if 'Objects by executable:' in by else []
rows = [l.split(None, 4) for l in rows if l.startswith('  ')]
got = sorted((r[4], r[:4]) for r in rows if len(r) == 5)
if got != sorted([(loader, ['3', '2', '1', '0']), (det, ['0', '0', '0', '1'])]):
    print(f'report --by exe: {got}')
for e in events:
    if e.get('details', {}).get('exe') == other:
        print(f"{e['event']} {e.get('id')}: names the other tenant's loader")
PY
	result "tenant $1: only $2's objects, all their records" "$(head -c 800 "$tmp/$1.check")"
}

two cgroup --cgroup "$cga"
check_two cgroup a "$la" "$det" "$lb" "/bpfrec-tn-$r-a/sub"
two exe --exe "$lb"
check_two exe b "$lb" "$det" "$la" "/bpfrec-tn-$r-b"

# Legacy attachments: attached by one binary, detached by another.
at="$tmp/a-$r/att$r"
unat="$tmp/.b-$r/x/unatt$r"
cp "$CGROUP_LINK" "$at"
cp "$CGROUP_LINK" "$unat"
cat >"$tmp/legacy.sh" <<'SH'
set -e
T=$1 CG=$2 AT=$3 UNAT=$4
rm -f "$T/in-l" "$T/ids-l"
mkfifo "$T/in-l"
"$AT" attach "$CG" <"$T/in-l" >"$T/ids-l" &
exec 3>"$T/in-l"
while ! grep -q prog= "$T/ids-l"; do sleep 0.02; done
eval "$(cat "$T/ids-l")"
"$UNAT" unattach "$CG" "$prog"
echo done >&3
exec 3>&-
wait
SH
legacy() {
	name=$1
	shift
	"$BPFREC" record --capture=syscall -o "$tmp/$name.data" "$@" -- \
		sh "$tmp/legacy.sh" "$tmp" "$cgb" "$at" "$unat" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	result "tenant record $name" "$([ $rc -ne 0 ] && echo "exit $rc: $(tail -3 "$tmp/$name.err")")"
	"$BPFREC" script -i "$tmp/$name.data" --json >"$tmp/$name.json" 2>"$tmp/$name.script.err"
	result "tenant script $name" "$([ -s "$tmp/$name.script.err" ] && head -c 300 "$tmp/$name.script.err")"
	python3 - "$tmp/$name.json" "$tmp/ids-l" "$at" "$unat" "/bpfrec-tn-$r-b" >"$tmp/$name.check" 2>&1 <<'PY'
import json, os, sys
events = [json.loads(l) for l in open(sys.argv[1])]
prog = int(open(sys.argv[2]).read().split('=')[1])
at, unat, cgroup = os.path.realpath(sys.argv[3]), os.path.realpath(sys.argv[4]), sys.argv[5]
legacy = [e for e in events if e.get('details', {}).get('legacy')]
mine = [e for e in legacy if e['details'].get('prog') == prog]
if [e['event'] for e in mine] != ['LINK_ATTACH', 'LINK_DETACH']:
    print(f'legacy records of prog {prog}: {[e["event"] for e in mine]}, want LINK_ATTACH, LINK_DETACH')
    sys.exit()
a, d = mine
if a['id'] != d['id'] or a['id'] < 2**31:
    print(f'legacy ids {a["id"]}, {d["id"]}: want one id of 2^31 or above')
for e, who in ((a, at), (d, unat)):
    want = {'comm': os.path.basename(who)[:15], 'type': 'cgroup'}
    details = {'exe': who, 'target': 'cgroup ' + cgroup, 'attach': 'cgroup_inet_egress',
               'captured': True, 'legacy': True}
    for k, v in want.items():
        if e.get(k) != v:
            print(f"{e['event']}: {k} is {e.get(k)!r}, want {v!r}")
    for k, v in details.items():
        if e['details'].get(k) != v:
            print(f"{e['event']}: {k} is {e['details'].get(k)!r}, want {v!r}")
p = [e for e in events if e['event'] == 'PROG_LOAD' and e['id'] == prog]
if len(p) != 1 or p[0]['details'].get('exe') != at:
    print(f'PROG_LOAD {prog}: {p}')
if not a['time_ns'] < d['time_ns']:
    print('the detach is not after the attach')
PY
	result "tenant $name: the legacy attach and detach, each binary named" "$(head -c 800 "$tmp/$name.check")"
	# report --by target: the attachment, detached once, not alive (it has no LINK_RELEASE)
	"$BPFREC" report -i "$tmp/$name.data" --by target 2>&1 |
		awk -v t="cgroup /bpfrec-tn-$r-b" '$0 ~ "^ " && substr($0, length($0) - length(t) + 1) == t' >"$tmp/$name.target"
	result "tenant $name: report --by target" \
		"$(got=$(awk '{ print $1, $2, $3, $4, $5 }' "$tmp/$name.target"); [ "$got" = "1 0 1 0 cgroup" ] || echo "rows: $got")"
}
legacy legacy
# perf reads records of an id above its ints, and a flag it does not know, without a word
PERF=${PERF:-/usr/bin/perf}
if [ -x "$PERF" ] && "$PERF" version >/dev/null 2>&1; then
	"$PERF" script -i "$tmp/legacy.data" >/dev/null 2>"$tmp/perf.err"
	result "tenant legacy: perf script quiet" "$([ -s "$tmp/perf.err" ] && head -c 300 "$tmp/perf.err")"
else
	skip "tenant legacy: perf script" "no perf at $PERF"
fi
# the detach follows the program's verdict, made at its load by the first binary
legacy legacy-exe --exe "$at"
python3 - "$tmp/legacy-exe.json" "$at" >"$tmp/legacy-exe.only" 2>&1 <<'PY'
import json, os, sys
at = os.path.realpath(sys.argv[2])
created = [e for e in map(json.loads, open(sys.argv[1]))
           if e['event'] in ('PROG_LOAD', 'MAP_CREATE', 'LINK_ATTACH', 'BTF_LOAD')]
if not created:
    print('no object created in the file')
for e in created:
    if e['details'].get('exe') != at:
        print(f"{e['event']} {e['id']} by {e['details'].get('exe')!r}: not the tenant's")
PY
result "tenant legacy-exe: nothing but the first binary's objects" "$(head -c 600 "$tmp/legacy-exe.only")"
finish
