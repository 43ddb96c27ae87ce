#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Lifecycle records from the capture on a kernel without the series'
# records (this host's): a loader copied to a random path and run in a
# new cgroup creates two maps, loads a program that uses them and
# attaches it to its cgroup with a link; a second, differently named
# binary detaches the link.  The file has the program's PROG_LOAD with
# the loader's executable, its cgroup and the SHA-256 of its xlated
# instructions (the syscall's, taken while it lived), MAP_CREATE for both
# maps, the LINK_ATTACH with the cgroup as target, the LINK_DETACH by the
# second binary, and the releases the end-of-recording scan found, each
# in time order.  perf reads the file without a word on stderr.
# Root, on the running kernel, with cgroup v2 mounted somewhere.
#
# Environment: BPFREC (the binary), CGROUP_LINK (tests/lifecycle/cgroup-link).
set -u
. "$(dirname "$0")/lib.sh"
PERF=${PERF:-/usr/bin/perf}
tmp=${KEEP_TMP:-$(mktemp -d)}
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
cg=
cleanup() {
	[ -n "$cg" ] && rmdir "$cg" 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT

if [ -z "$cgroot" ]; then
	skip "lifecycle" "no cgroup v2 hierarchy is mounted"
	echo "lifecycle: $passed passed, $failed failed, $skipped skipped"
	exit 0
fi
if "$BPFREC" record --capture=syscall -o "$tmp/probe.data" -- true 2>&1 | grep -q 'recording programs, maps, links'; then
	skip "lifecycle" "the kernel writes the series' records itself (tests/guest/ covers it)"
	echo "lifecycle: $passed passed, $failed failed, $skipped skipped"
	exit 0
fi

# random names and paths, as a hidden loader would use
r=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
mkdir -p "$tmp/.cache-$r/x" "$tmp/bin-$r"
loader="$tmp/.cache-$r/x/.ld$r"
detacher="$tmp/bin-$r/unlink$r"
cp "$CGROUP_LINK" "$loader"
cp "$CGROUP_LINK" "$detacher"
cgname="bpfrec-lc-$r"
cg="$cgroot/$cgname"
mkdir "$cg" || { fail "lifecycle cgroup" "cannot create $cg"; exit 1; }

# The workload: the loader in the cgroup, the detacher once the link is
# there, the loader's end, and its maps gone (they go an RCU grace period
# after the program): every step waits for the one before.
cat >"$tmp/work.sh" <<'SH'
set -e
T=$1 CG=$2 LOADER=$3 DETACHER=$4
mkfifo "$T/in"
sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" load "$1"' sh "$CG" "$LOADER" <"$T/in" >"$T/ids" &
exec 3>"$T/in"
# a loader that exits without a link ends the workload, which would wait forever
loader=$!
while ! grep -q link= "$T/ids"; do kill -0 $loader 2>/dev/null || exit 1; sleep 0.02; done
eval "$(cat "$T/ids" | tr ' ' '\n' | sed 's/^/id_/')"
"$DETACHER" detach "$id_link"
"$DETACHER" xlated "$id_prog" >"$T/sha"
echo done >&3
exec 3>&-
wait
while bpftool map show id "$id_map" >/dev/null 2>&1 ||
      bpftool map show id "$id_array" >/dev/null 2>&1; do sleep 0.02; done
SH
"$BPFREC" record --capture=syscall -o "$tmp/lc.data" -- sh "$tmp/work.sh" "$tmp" "$cg" "$loader" "$detacher" \
	>"$tmp/rec.out" 2>"$tmp/rec.err"
rc=$?
result "lifecycle record" "$([ $rc -ne 0 ] && echo "exit $rc: $(tail -3 "$tmp/rec.err")")"
"$BPFREC" script -i "$tmp/lc.data" --json >"$tmp/lc.json" 2>"$tmp/script.err"
result "lifecycle script --json" "$([ -s "$tmp/script.err" ] && head -c 300 "$tmp/script.err")"

python3 - "$tmp/lc.json" "$tmp/ids" "$tmp/sha" "$loader" "$detacher" "/$cgname" \
	>"$tmp/check" 2>&1 <<'PY'
import json, os, sys
events = [json.loads(l) for l in open(sys.argv[1])]
ids = dict(kv.split('=') for kv in open(sys.argv[2]).read().split())
ids = {k: int(v) for k, v in ids.items()}
sha = open(sys.argv[3]).read().strip()
loader, detacher, cgroup = sys.argv[4], os.path.realpath(sys.argv[5]), sys.argv[6]
loader = os.path.realpath(loader)

def one(event, id):
    found = [e for e in events if e['event'] == event and e.get('id') == id]
    if len(found) != 1:
        print(f'{event} {id}: {len(found)} records, want 1')
        return None
    return found[0]

def want(e, what, key, value):
    got = e['details'].get(key) if key != 'comm' else e.get('comm')
    if got != value:
        print(f'{what}: {key} is {got!r}, want {value!r}')

def by_loader(e, what):
    want(e, what, 'exe', loader)
    want(e, what, 'cgroup', cgroup)

p = one('PROG_LOAD', ids['prog'])
m = one('MAP_CREATE', ids['map'])
a = one('MAP_CREATE', ids['array'])
l = one('LINK_ATTACH', ids['link'])
d = one('LINK_DETACH', ids['link'])
u = one('PROG_UNLOAD', ids['prog'])
mf = one('MAP_FREE', ids['map'])
af = one('MAP_FREE', ids['array'])
lr = one('LINK_RELEASE', ids['link'])
if p:
    by_loader(p, 'PROG_LOAD')
    want(p, 'PROG_LOAD', 'sha256', sha)
    want(p, 'PROG_LOAD', 'maps', f"{ids['map']},{ids['array']}")
for e, name in ((m, 'lc_hash'), (a, 'lc_array')):
    if e:
        by_loader(e, 'MAP_CREATE ' + name)
        want(e, 'MAP_CREATE ' + name, 'captured', True)
        if e.get('name') != name:
            print(f'MAP_CREATE: name {e.get("name")!r}, want {name!r}')
if l:
    by_loader(l, 'LINK_ATTACH')
    want(l, 'LINK_ATTACH', 'target', 'cgroup ' + cgroup)
    want(l, 'LINK_ATTACH', 'prog', ids['prog'])
    want(l, 'LINK_ATTACH', 'captured', True)
if d:
    want(d, 'LINK_DETACH', 'comm', os.path.basename(detacher)[:15])
    want(d, 'LINK_DETACH', 'exe', detacher)
    want(d, 'LINK_DETACH', 'captured', True)
for e, what in ((mf, 'MAP_FREE'), (af, 'MAP_FREE'), (lr, 'LINK_RELEASE')):
    if e:
        want(e, what, 'captured', True)
        if not e['details'].get('gone_after', 0) < e['time_ns']:
            print(f'{what}: gone_after {e["details"].get("gone_after")} not before {e["time_ns"]}')
order = [m, a, p, l, d, u, mf]
if all(order) and [e['time_ns'] for e in order] != sorted(e['time_ns'] for e in order):
    print('not in time order: ' + ' '.join(f"{e['event']}@{e['time_ns']}" for e in order))
PY
result "lifecycle records" "$(head -c 600 "$tmp/check")"

# report --by: the objects grouped by their creator's executable, cgroup
# and process, and the links by their target, as the records name them.
# The loader also loads libbpf's probe programs: its counts are those of
# script's records by the same creator, and its maps and link exactly.
for by in loader exe cgroup target; do
	"$BPFREC" report -i "$tmp/lc.data" --by $by >"$tmp/by-$by.out" 2>"$tmp/by-$by.err"
	echo $? >"$tmp/by-$by.rc"
done
"$BPFREC" report -i "$tmp/lc.data" --by comm >/dev/null 2>"$tmp/by-bad.err"
echo $? >"$tmp/by-bad.rc"
python3 - "$tmp" "$loader" "$detacher" "/$cgname" >"$tmp/by.check" 2>&1 <<'PY'
import json, os, sys
T, loader, detacher, cgroup = sys.argv[1], os.path.realpath(sys.argv[2]), \
    os.path.realpath(sys.argv[3]), sys.argv[4]
events = [json.loads(l) for l in open(f'{T}/lc.json')]
ids = {k: int(v) for k, v in (kv.split('=') for kv in open(f'{T}/ids').read().split())}

def table(by, title):
    """The rows of report --by BY: dicts by the header's column names."""
    if open(f'{T}/by-{by}.rc').read().strip() != '0' or os.path.getsize(f'{T}/by-{by}.err'):
        print(f'--by {by}: exit {open(f"{T}/by-{by}.rc").read().strip()}, '
              f'{open(f"{T}/by-{by}.err").read()[:200]}')
        return []
    lines = open(f'{T}/by-{by}.out').read().split('\n')
    if title not in lines:
        print(f'--by {by}: no "{title}" line')
        return []
    at = lines.index(title)
    head = lines[at + 1].split()
    rows = []
    for l in lines[at + 2:]:
        if not l.startswith('  ') or l.startswith('  bpfrec (self)'):
            break
        rows.append(dict(zip(head, l.split(None, len(head) - 1))))
    return rows

def row(rows, by, col, value):
    found = [r for r in rows if r.get(col) == value]
    if len(found) != 1:
        print(f'--by {by}: {len(found)} rows of {col} {value!r}, want 1')
        return {}
    return found[0]

def want(r, by, what, expect):
    for col, value in expect.items():
        if r and r.get(col) != str(value):
            print(f'--by {by} {what}: {col} {r.get(col)!r}, want {value}')

creations = {'PROG_LOAD': 'PROGS', 'MAP_CREATE': 'MAPS', 'LINK_ATTACH': 'LINKS', 'BTF_LOAD': 'BTF'}
def counted(key, value):
    """What script's records say this creator made and changed."""
    n = {c: 0 for c in creations.values()}
    n['CHANGES'] = 0
    for e in events:
        if e['details'].get(key) != value:
            continue
        if e['event'] in creations:
            n[creations[e['event']]] += 1
        elif e['event'] in ('LINK_DETACH', 'LINK_UPDATE'):
            n['CHANGES'] += 1
    return n

exe = table('exe', 'Objects by executable:')
want(row(exe, 'exe', 'EXE', loader), 'exe', 'loader', counted('exe', loader))
want(row(exe, 'exe', 'EXE', loader), 'exe', 'loader', {'MAPS': 2, 'LINKS': 1, 'CHANGES': 0})
want(row(exe, 'exe', 'EXE', detacher), 'exe', 'detacher',
     {'PROGS': 0, 'MAPS': 0, 'LINKS': 0, 'BTF': 0, 'CHANGES': 1})
cg = table('cgroup', 'Objects by cgroup:')
want(row(cg, 'cgroup', 'CGROUP', cgroup), 'cgroup', cgroup, counted('cgroup', cgroup))
want(row(cg, 'cgroup', 'CGROUP', cgroup), 'cgroup', cgroup, {'MAPS': 2, 'LINKS': 1})
ld = table('loader', 'Objects by loader:')
p = [e for e in events if e['event'] == 'PROG_LOAD' and e['id'] == ids['prog']]
d = [e for e in events if e['event'] == 'LINK_DETACH' and e['id'] == ids['link']]
if p and d:
    want(row(ld, 'loader', 'EXE', loader), 'loader', 'loader',
         {'PID': p[0]['pid'], 'COMM': os.path.basename(loader)[:15], 'UID': 0, 'MAPS': 2,
          'LINKS': 1, 'CHANGES': 0})
    want(row(ld, 'loader', 'EXE', detacher), 'loader', 'detacher',
         {'PID': d[0]['pid'], 'COMM': os.path.basename(detacher)[:15], 'LINKS': 0, 'CHANGES': 1})
tg = table('target', 'Links by target:')
want(row(tg, 'target', 'TARGET', 'cgroup ' + cgroup), 'target', cgroup,
     {'TYPE': 'cgroup', 'LINKS': 1, 'ALIVE': 0, 'DETACHES': 1, 'UPDATES': 0})
bad = open(f'{T}/by-bad.err').read()
if open(f'{T}/by-bad.rc').read().strip() != '2' or \
   bad != "bpfrec report: --by: 'comm' is not one of loader, exe, cgroup, target (see bpfrec report --help)\n":
    print(f'--by comm: {bad!r}')
PY
result "lifecycle report --by loader, exe, cgroup and target" "$(head -c 600 "$tmp/by.check")"

# perf reads the records it does not know without a word
if [ -x "$PERF" ] && "$PERF" version >/dev/null 2>&1; then
	"$PERF" script -i "$tmp/lc.data" >/dev/null 2>"$tmp/perf.err"
	result "lifecycle perf script quiet" "$([ -s "$tmp/perf.err" ] && head -c 300 "$tmp/perf.err")"
	"$PERF" script -D -i "$tmp/lc.data" >"$tmp/perf.dump" 2>"$tmp/perf.err"
	result "lifecycle perf script -D quiet" "$([ -s "$tmp/perf.err" ] && head -c 300 "$tmp/perf.err")"
	# a file without samples is an error to perf report; --stats reads every record
	"$PERF" report --stats -i "$tmp/lc.data" >/dev/null 2>"$tmp/perf.err"
	result "lifecycle perf report --stats quiet" "$([ -s "$tmp/perf.err" ] && head -c 300 "$tmp/perf.err")"
else
	skip "lifecycle perf" "no perf at $PERF"
fi

# libbpf-tools and bpftrace as users run them: every program, map, link
# and BTF object they hold while they run (their fds' fdinfo: what
# bpftool's pids column shows, which Debian's bpftool is built without)
# is in the file with its creator, named by the tool's own executable.
# libbpf-tools attach with links and load BTF; bpftrace 0.17 attaches
# through perf events, so it adds programs and maps only.
tools=
for t in /usr/sbin/execsnoop /usr/sbin/opensnoop /usr/bin/bpftrace; do
	[ -x "$t" ] && tools="$tools $t"
done
if [ -z "$tools" ]; then
	skip "lifecycle libbpf-tools and bpftrace" "none of execsnoop, opensnoop (libbpf-tools) or bpftrace is installed"
else
	cat >"$tmp/tools.sh" <<'SH'
T=$1
shift
pids=
for t in "$@"; do
	case $t in
	# BEGIN runs once every probe is attached: its line says bpftrace is ready
	*/bpftrace) "$t" -e 'BEGIN { printf("ready\n"); }
		tracepoint:syscalls:sys_enter_openat { @opens[comm] = count(); }
		tracepoint:sched:sched_process_exec { @execs = count(); }' >"$T/bpftrace.out" 2>&1 & ;;
	*) "$t" >/dev/null 2>&1 & ;;
	esac
	pids="$pids $!"
	echo "$! $t" >>"$T/exe"
done
# each libbpf tool holds its links once it has attached; bpftrace says so
ready() {
	case $2 in
	*/bpftrace) grep -q '^ready$' "$T/bpftrace.out" ;;
	*) cat /proc/$1/fdinfo/* 2>/dev/null | grep -q '^link_id:' ;;
	esac
}
for i in $(seq 1 3000); do
	n=0
	while read -r p t; do ready "$p" "$t" && n=$((n + 1)); done <"$T/exe"
	[ "$n" -eq "$#" ] && break
	sleep 0.02
done
echo "$n of $# ready" >"$T/ready"
for p in $pids; do
	for f in /proc/$p/fdinfo/*; do
		sed -n "s/^\(prog_id\|map_id\|link_id\|btf_id\):[[:space:]]*/$p \1 /p" "$f"
	done
done >"$T/held"
kill $pids
wait
SH
	"$BPFREC" record --capture=syscall -o "$tmp/tools.data" -- sh "$tmp/tools.sh" "$tmp" $tools \
		>/dev/null 2>"$tmp/tools.err"
	"$BPFREC" script -i "$tmp/tools.data" --json >"$tmp/tools.json" 2>/dev/null
	python3 - "$tmp" $tools >"$tmp/tools.check" 2>&1 <<'PY'
import json, sys
T, tools = sys.argv[1], sys.argv[2:]
events = [json.loads(l) for l in open(f'{T}/tools.json')]
created = {}
for e in events:
    if e['event'] in ('PROG_LOAD', 'MAP_CREATE', 'LINK_ATTACH', 'BTF_LOAD'):
        created[(e['event'], e['id'])] = e
event_of = {'prog_id': 'PROG_LOAD', 'map_id': 'MAP_CREATE', 'link_id': 'LINK_ATTACH',
            'btf_id': 'BTF_LOAD'}
exe = dict(l.split() for l in open(f'{T}/exe'))
held = set(tuple(l.split()) for l in open(f'{T}/held'))
ready = open(f'{T}/ready').read().split()
if ready[0] != ready[2]:
    print(f'only {ready[0]} of {ready[2]} tools were ready in 60 s')
# what each tool held, by kind: libbpf-tools hold all four, bpftrace programs and maps
for pid, path in exe.items():
    kinds = {k for p, k, _ in held if p == pid}
    want = {'prog_id', 'map_id'} if path.endswith('/bpftrace') else set(event_of)
    if not want <= kinds:
        print(f'{path} held only {sorted(kinds)}')
for pid, kind, id in sorted(held):
    id = int(id)
    e = created.get((event_of[kind], id))
    if not e:
        print(f'{kind} {id} of {exe[pid]}: no {event_of[kind]}')
    elif e['pid'] != int(pid) or e['details'].get('exe') != exe[pid]:
        print(f'{kind} {id}: {event_of[kind]} by pid {e["pid"]} exe {e["details"].get("exe")!r}, '
              f'held by pid {pid} ({exe[pid]})')
PY
	result "lifecycle libbpf-tools and bpftrace: every object they hold has its creation and creator" \
		"$(head -c 600 "$tmp/tools.check")"
fi

echo "lifecycle: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
