#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What a program is, kept in the file however briefly it lived:
#   - the bpf_metadata_* variables of a program that lives 1 ms (two, in
#     tests/metadata/meta.bpf.c), in script --json's PROG_LOAD as perf
#     prints them; with --perf-metadata, also as perf's
#     PERF_RECORD_BPF_METADATA records, read here field by field from the
#     file and, where scripts/build-perf.sh built perf 7.2, printed by it;
#     without the option the file has none, and perf 6.1 reads it whole;
#   - only the variables of the .rodata section, not bytes past its list
#     that read as one more (tests/metadata/meta-overread.c);
#   - with --keep-insns, its xlated instructions: script --dump ID gives
#     the instructions bpftool prog dump xlated gave while it lived (their
#     count, indexes and opcodes), and a file that kept none says so; a
#     program that existed before the recording has its instructions and
#     their SHA-256 (as bpftool's dump file hashes) by id.
# Root, on the running kernel, with the capture (the syscall path here).
#
# Environment: BPFREC (the binary), META_LOAD (tests/metadata/meta-load),
# META_OBJ (its BPF object), META_OVERREAD (tests/metadata/meta-overread),
# PERF72 (perf 7.2, optional).
set -u
here=$(dirname "$0")
. "$here/lib.sh"
host_setup metadata "$BPFREC" "$META_LOAD" "$META_OVERREAD"
trap 'rm -rf "$tmp"' EXIT
PERF=${PERF:-/usr/bin/perf}
PERF72=${PERF72:-${BPFREC_CACHE:-/var/cache/bpfrec}/perf-7.2/build/perf}

# 1. A program of 1 ms, its metadata in the JSON of its PROG_LOAD.
"$BPFREC" record --perf-metadata -o "$tmp/m.data" -- "$META_LOAD" "$META_OBJ" \
	>"$tmp/m.ids" 2>"$tmp/rec.err"
rc=$?
result "metadata record" "$([ $rc -ne 0 ] && echo "exit $rc: $(tail -3 "$tmp/rec.err")")"
id=$(sed -n 's/^prog=//p' "$tmp/m.ids")
"$BPFREC" script -i "$tmp/m.data" --json >"$tmp/m.json" 2>"$tmp/script.err"
result "metadata script --json" "$([ -s "$tmp/script.err" ] && head -c 300 "$tmp/script.err")"
python3 - "$tmp/m.json" "$id" >"$tmp/check" 2>&1 <<'PY'
import json, sys
want = {"owner": '"bpfrec test"', "level": "-42"}
# a key given twice must fail the check, not leave its last value alone
def pairs(kv):
    d = dict(kv)
    if len(d) != len(kv):
        d["duplicate keys"] = [k for k, _ in kv]
    return d
ev = [json.loads(l, object_pairs_hook=pairs) for l in open(sys.argv[1])]
mine = [e for e in ev if e.get("id") == int(sys.argv[2])]
load = [e for e in mine if e["event"] == "PROG_LOAD"]
unload = [e for e in mine if e["event"] == "PROG_UNLOAD"]
if len(load) != 1 or len(unload) != 1:
    print("program %s: %d PROG_LOAD, %d PROG_UNLOAD, want 1 each" % (sys.argv[2], len(load), len(unload)))
elif load[0]["details"].get("metadata") != want:
    print("metadata %r, want %r" % (load[0]["details"].get("metadata"), want))
elif list(load[0]["details"]["metadata"]) != ["owner", "level"]:
    print("metadata in the order %r, want the section's" % list(load[0]["details"]["metadata"]))
PY
# a capture buffer that another storm filled says so: LOST ... captured facts
result "metadata of a program of 1 ms in script --json" \
	"$(cat "$tmp/check")$([ -s "$tmp/check" ] && grep LOST "$tmp/rec.err")"

# perf's records, read from the file as perf 6.16+ reads them: type 84,
# prog_name[512], nr_entries, then key[64] value[256] each
python3 - "$tmp/m.data" >"$tmp/perf.recs" 2>&1 <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
off, size = struct.unpack_from("<QQ", d, 40)
pos = off
while pos + 8 <= off + size:
    typ, misc, sz = struct.unpack_from("<IHH", d, pos)
    if sz < 8:
        break
    if typ == 84:
        name = d[pos + 8:pos + 520].split(b"\0")[0].decode()
        n, = struct.unpack_from("<Q", d, pos + 520)
        if sz != 528 + n * 320:
            print("size %d for %d entries" % (sz, n))
        ents = []
        for i in range(n):
            e = pos + 528 + i * 320
            ents.append("%s=%s" % (d[e:e + 64].split(b"\0")[0].decode(), d[e + 64:e + 320].split(b"\0")[0].decode()))
        print(name, " ".join(ents))
    pos += sz
PY
tag_main=$(grep "\"id\":$id," "$tmp/m.json" | grep -o '"funcs":"[^"]*"')
want_recs=$(grep -c 'owner="bpfrec test" level=-42$' "$tmp/perf.recs")
result "metadata as perf's BPF_METADATA records, one per image" \
	"$([ "$want_recs" -ne 2 ] || ! grep -q '^bpf_prog_[0-9a-f]\{16\}_meta_prog ' "$tmp/perf.recs" ||
	   ! grep -q '^bpf_prog_[0-9a-f]\{16\}_count ' "$tmp/perf.recs" &&
	   echo "records: $(cat "$tmp/perf.recs") ($tag_main)")"
if [ -x "$PERF72" ]; then
	"$PERF72" script --show-bpf-events -i "$tmp/m.data" >"$tmp/perf72.out" 2>"$tmp/perf72.err"
	result "perf 7.2 prints the metadata" \
		"$(grep -A2 "PERF_RECORD_BPF_METADATA prog bpf_prog_[0-9a-f]*_meta_prog$" "$tmp/perf72.out" |
		   tr -s ' ' | grep -c -e 'entry 0: owner = "bpfrec test"$' -e 'entry 1: level = -42$' |
		   grep -qx 2 || echo "$(grep -A2 BPF_METADATA "$tmp/perf72.out" | head -6) $(head -c 200 "$tmp/perf72.err")")"
	# perf 7.2 checks every record's minimum size: ours must pass without a warning
	result "perf 7.2 reads the file without a warning" \
		"$(grep -m 2 . "$tmp/perf72.err" | head -c 300)"
else
	skip "perf 7.2 prints the metadata" "no perf 7.2 at $PERF72 (scripts/build-perf.sh with base 7.2)"
	skip "perf 7.2 reads the file without a warning" "no perf 7.2 at $PERF72"
fi

# without --perf-metadata: no record perf 6.1 cannot read
"$BPFREC" record -o "$tmp/n.data" -- "$META_LOAD" "$META_OBJ" >"$tmp/n.ids" 2>"$tmp/n.err"
id2=$(sed -n 's/^prog=//p' "$tmp/n.ids")
"$BPFREC" script -i "$tmp/n.data" --json | grep "\"id\":$id2," | grep PROG_LOAD >"$tmp/n.json"
"$PERF" script -i "$tmp/n.data" >/dev/null 2>"$tmp/perf.err"
rc=$?
result "metadata kept without --perf-metadata, and perf $("$PERF" --version | cut -d' ' -f3) reads the file" \
	"$(grep -q '"metadata":{"owner":"\\"bpfrec test\\"","level":"-42"}' "$tmp/n.json" ||
	   echo "no metadata: $(head -c 300 "$tmp/n.json"); recorder: $(grep -v 'exited with' "$tmp/n.err" | tail -3)")$(
	  [ $rc -ne 0 ] || [ -s "$tmp/perf.err" ] && echo "perf: exit $rc $(head -c 200 "$tmp/perf.err")")"

# Only the section's variables: its BTF has, just past the list of its one
# variable, bytes that read as an entry for bpf_metadata_ghost, a variable
# of no section, which a capture reading past the list reports as well.
"$BPFREC" record -o "$tmp/o.data" -- "$META_OVERREAD" >"$tmp/o.ids" 2>"$tmp/o.err"
rc=$?
id3=$(sed -n 's/^prog=//p' "$tmp/o.ids")
"$BPFREC" script -i "$tmp/o.data" --json >"$tmp/o.json" 2>"$tmp/o-script.err"
python3 - "$tmp/o.json" "$id3" >"$tmp/o.check" 2>&1 <<'PY'
import json, sys
# every object as its pairs, so that a key printed twice is seen
ev = [dict(json.loads(l, object_pairs_hook=list)) for l in open(sys.argv[1])]
load = [e for e in ev if e.get("id") == int(sys.argv[2]) and e["event"] == "PROG_LOAD"]
if len(load) != 1:
    print("program %s: %d PROG_LOAD, want 1" % (sys.argv[2], len(load)))
elif dict(load[0]["details"]).get("metadata") != [("a", "17")]:
    print("metadata %r, want a=17 only" % dict(load[0]["details"]).get("metadata"))
PY
result "metadata: the .rodata section's variables only, none read past its list" \
	"$([ $rc -ne 0 ] && echo "exit $rc: $(tail -3 "$tmp/o.err")")$(
	  [ -s "$tmp/o-script.err" ] && head -c 300 "$tmp/o-script.err")$(
	  cat "$tmp/o.check")$([ -s "$tmp/o.check" ] && grep LOST "$tmp/o.err")"

# 2. --keep-insns: the instructions of a program, then script --dump
cat >"$tmp/work.sh" <<'SH'
set -e
T=$1 L=$2 O=$3
mkfifo "$T/in"
"$L" -w "$O" <"$T/in" >"$T/ids" &
exec 3>"$T/in"
while ! grep -q prog= "$T/ids"; do sleep 0.02; done
bpftool prog dump xlated id "$(sed 's/prog=//' "$T/ids")" >"$T/bpftool.txt"
exec 3>&-
wait
SH
"$BPFREC" record --keep-insns -o "$tmp/k.data" -- sh "$tmp/work.sh" "$tmp" "$META_LOAD" "$META_OBJ" \
	>/dev/null 2>"$tmp/k.err"
rc=$?
result "keep-insns record" "$([ $rc -ne 0 ] && echo "exit $rc: $(tail -3 "$tmp/k.err")")$(
	grep -q '^bpfrec record: kept the instructions of [1-9][0-9]* programs' "$tmp/k.err" ||
	echo "no count of what was kept: $(tail -3 "$tmp/k.err")")"
id=$(sed -n 's/^prog=//p' "$tmp/ids")
"$BPFREC" script -i "$tmp/k.data" --dump "$id" >"$tmp/dump.txt" 2>"$tmp/dump.err"
rc=$?
# index and opcode of every instruction line: "  12: (18) r1 = map[id:5]"
ops() { sed -n 's/^ *\([0-9][0-9]*\): (\([0-9a-f][0-9a-f]\)) .*/\1 \2/p' "$1"; }
ops "$tmp/bpftool.txt" >"$tmp/want.ops"
ops "$tmp/dump.txt" >"$tmp/got.ops"
result "script --dump ID: bpftool's instructions (count, indexes, opcodes)" \
	"$([ $rc -ne 0 ] && echo "exit $rc: $(cat "$tmp/dump.err")")$(
	  [ -s "$tmp/want.ops" ] || echo "bpftool dumped nothing")$(
	  cmp -s "$tmp/want.ops" "$tmp/got.ops" ||
	  echo "$(wc -l <"$tmp/got.ops") lines, want $(wc -l <"$tmp/want.ops"): $(diff "$tmp/want.ops" "$tmp/got.ops" | head -4 | tr '\n' ' ')")"
result "script --dump ID: maps by id, as bpftool names them" \
	"$(grep -o 'map\[id:[0-9]*\]\(\[0\]+[0-9]*\)\?' "$tmp/bpftool.txt" >"$tmp/want.maps"
	   grep -o 'map\[id:[0-9]*\]\(\[0\]+[0-9]*\)\?' "$tmp/dump.txt" >"$tmp/got.maps"
	   [ -s "$tmp/want.maps" ] && cmp -s "$tmp/want.maps" "$tmp/got.maps" ||
	   echo "$(tr '\n' ' ' <"$tmp/got.maps"), want $(tr '\n' ' ' <"$tmp/want.maps")")"

# a program that existed before the recording: its hash and instructions by id
cat >"$tmp/pre.sh" <<'SH'
set -e
T=$1 L=$2 O=$3 B=$4
mkfifo "$T/pin"
"$L" -w "$O" <"$T/pin" >"$T/pids" &
exec 3>"$T/pin"
while ! grep -q prog= "$T/pids"; do sleep 0.02; done
id=$(sed 's/prog=//' "$T/pids")
bpftool prog dump xlated id "$id" >"$T/pre-bpftool.txt"
bpftool prog dump xlated id "$id" file "$T/pre.bin"
"$B" record --keep-insns -o "$T/pre.data" -- true 2>"$T/pre.err"
exec 3>&-
wait
SH
sh "$tmp/pre.sh" "$tmp" "$META_LOAD" "$META_OBJ" "$BPFREC"
pid=$(sed -n 's/^prog=//p' "$tmp/pids")
"$BPFREC" script -i "$tmp/pre.data" --dump "$pid" >"$tmp/pre-dump.txt" 2>&1
ops "$tmp/pre-bpftool.txt" >"$tmp/pre-want.ops"
ops "$tmp/pre-dump.txt" >"$tmp/pre-got.ops"
sha=$(sha256sum <"$tmp/pre.bin" | cut -c1-64)
result "a program that existed before: its SHA-256 and instructions by id" \
	"$("$BPFREC" script -i "$tmp/pre.data" --json | grep "\"id\":$pid," | grep -q "\"synthesised\":true.*\"sha256\":\"$sha\"" ||
	   echo "no synthesised PROG_LOAD with sha256 $sha")$(
	  [ -s "$tmp/pre-want.ops" ] && cmp -s "$tmp/pre-want.ops" "$tmp/pre-got.ops" ||
	  echo " dump: $(head -c 200 "$tmp/pre-dump.txt")")"

# the completion of --dump offers the file's programs
comp=$(PATH=$(dirname "$BPFREC"):$PATH bash -c '. "$1"
	line="bpfrec script -i $2 --dump "
	COMP_LINE=$line COMP_POINT=${#line}
	COMP_WORDS=(bpfrec script -i "$2" --dump "") COMP_CWORD=5
	_bpfrec
	printf "%s\n" "${COMPREPLY[@]}"' sh "$here/../../bpfrec-completion.bash" "$tmp/k.data")
result "completion of script --dump: the file's programs" \
	"$(grep -qx "$id" <<EOT || echo "offered $(echo $comp | head -c 200), not $id"
$comp
EOT
)"

# a file that kept no instructions, and a bad id
one_line "script --dump of a file without them" 1 \
	"bpfrec script: $tmp/n.data: no instructions of program $id2 (record --keep-insns keeps them)" \
	script -i "$tmp/n.data" --dump "$id2"
one_line "script --dump of a bad id" 2 \
	"bpfrec script: --dump wants a program id, not 'x' (see bpfrec script --help)" \
	script -i "$tmp/n.data" --dump x

echo "metadata: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
