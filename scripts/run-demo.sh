#!/bin/bash
# `make run`: boot the patched kernel and record a sample BPF workload with bpfrec, then
# print what was recorded: the timeline (bpfrec script), the summary (bpfrec report) and
# what perf with the perf tools follow-up reads in the same file; one tenant's objects
# (record --exe) while another loader runs beside it; a program's bpf_metadata_*
# variables and its instructions (record --keep-insns, script --dump); then count with
# bpfrec stat: a program's cost per run (-b), its run times as a histogram kept in a file
# (--hist -o, read back by bpfrec report) and shared counters (--bpf-counters), which
# need the BPF trampolines the guest kernel allows; a snapshot of bpfrec top and a scrape
# of bpfrec serve; then profile:
# CPU samples in a BPF program kept busy, reported by its name once it is unloaded, and
# where a sleeper spends its time off CPU, as folded stacks.
#   usage: scripts/run-demo.sh [--base NAME] [--debug] [--out FILE]
#   --out FILE  also keep the demo's output in FILE (scripts/check-demo.sh asserts it)
# Stage lines go to stderr before and after the demo; the demo's own output is printed in
# one piece once the guest has ended, so the two never interleave.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

vmargs=()
out=
while [ $# -gt 0 ]; do
	case "$1" in
	--base) vmargs+=("$1" "${2:-}"); shift ;;
	--debug) vmargs+=("$1") ;;
	--out) out=${2:?--out needs a file}; shift ;;
	*) echo "usage: $0 [--base NAME] [--debug] [--out FILE]" >&2; exit 2 ;;
	esac
	shift
done

stage "building the recorder and the sample workload" >&2
logged "$CACHE/logs/bpfrec-build.$$.log" make -C "$TOP/tools/bpfrec" bpfrec guest-tests

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/demo.sh" <<'SH'
#!/bin/sh
# The sample workload loads BTF, creates a map, loads a program using it, attaches it
# through a link, then frees everything; bpfrec records the whole lifecycle.
cd /tmp
echo "==== bpfrec record -e bpf-events -o demo.data -- workload -n 2 -l demo.ids"
bpfrec record -e bpf-events -o demo.data -- \
	/opt/bpfrec/tests/guest/workload -n 2 -l demo.ids || exit
echo "==== bpfrec script -i demo.data"
bpfrec script -i demo.data || exit
echo "==== bpfrec report -i demo.data"
bpfrec report -i demo.data || exit
# Linux perf reads the same file: perf with the series' perf tools follow-up names
# the records and prints what each says of its object.
echo "==== perf script --show-bpf-events -i demo.data  (perf with patches/perf-tools)"
perf script --show-bpf-events -i demo.data >perf.out || exit
grep -o 'PERF_RECORD_BPF_EVENT type [A-Z]*_[A-Z]*(.*' perf.out | grep -v 'type PROG_' |
	cut -d' ' -f3-
t=/opt/bpfrec/tests/guest
# One tenant: stat-prog loads (and libbpf probes) first, then the workload; --exe keeps
# the objects the workload created and every record of theirs, and nothing else.
echo "==== bpfrec record --exe $t/workload -o tenant.data -- sh -c 'stat-prog -r 100 -k 100 && workload -n 1'"
bpfrec record --exe $t/workload -o tenant.data -- \
	sh -c "$t/stat-prog -r 100 -k 100 && $t/workload -n 1" || exit
echo "==== bpfrec script -i tenant.data -F pid,comm,event,id,name,type  (the workload's objects only)"
bpfrec script -i tenant.data -F pid,comm,event,id,name,type || exit
# What a program is, kept however briefly it lived: meta-load loads meta.bpf.o's
# program, with two bpf_metadata_* variables, for 1 ms; --keep-insns keeps its code.
echo "==== bpfrec record --keep-insns -o meta.data -- meta-load meta.bpf.o"
bpfrec record --keep-insns -o meta.data -- $t/meta-load $t/objects/meta.bpf.o >meta.out || exit
cat meta.out
mid=$(sed -n 's/^prog=//p' meta.out)
echo "==== bpfrec script -i meta.data --comm meta-load -F event,id,name,type  (meta_prog and its maps)"
bpfrec script -i meta.data --comm meta-load -F event,id,name,type >meta.script || exit
awk -v id="$mid" '$2 == id || $1 == "MAP_CREATE" && ($3 == "hits" || $3 == "meta.rodata")' meta.script
echo "==== bpfrec script -i meta.data --json  (program $mid's PROG_LOAD: \"xlated\", \"maps\", \"metadata\")"
bpfrec script -i meta.data --json >meta.json || exit
line=$(grep "\"event\":\"PROG_LOAD\",\"id\":$mid," meta.json)
# one field at a time: busybox grep -o prints the matches of only one of several -e
for f in '"xlated":[0-9]*' '"maps":"[^"]*"' '"metadata":{[^}]*}'; do
	echo "$line" | grep -o "$f"
done | tr '\n' ' '
echo
echo "==== bpfrec script -i meta.data --dump $mid  (its first 12 instructions, as bpftool prog dump xlated)"
bpfrec script -i meta.data --dump "$mid" >meta.dump || exit
head -n 12 meta.dump
echo "... $(wc -l <meta.dump) instructions in all, the last: $(tail -n 1 meta.dump | sed 's/^ *//')"
# bpfrec stat: what a BPF program costs per run (-b: the kernel's run time
# stats for time, fentry/fexit on it for other events), and
# counters that every session shares (--bpf-counters: one perf event per CPU).
$t/stat-prog -s 3600 >target.out &
target=$!
for _ in $(seq 2400); do grep -q '^id ' target.out && break; sleep 0.25; done
id=$(awk '$1 == "id" { print $2 }' target.out)
echo "==== bpfrec stat -b $id [-e cpu-clock,page-faults] -- stat-prog -i $id -r 1000 -k 100"
echo "# time from the kernel's run time stats (no trampoline), then other events through fentry/fexit"
bpfrec stat -b "$id" -- $t/stat-prog -i "$id" -r 1000 -k 100 || exit
bpfrec stat -b "$id" -e cpu-clock,page-faults -- $t/stat-prog -i "$id" -r 1000 -k 100 || exit
kill $target
# Run times as a histogram: a target of two modes (every tenth run adds up 100 times as
# many numbers), its histogram kept in hist.data, where bpfrec report reads it back.
$t/stat-prog -m -w 100 -s 3600 >hist-target.out &
target=$!
for _ in $(seq 2400); do grep -q '^id ' hist-target.out && break; sleep 0.25; done
id=$(awk '$1 == "id" { print $2 }' hist-target.out)
echo "==== bpfrec stat -b $id --hist -o hist.data -- stat-prog -i $id -r 1000 -k 100  (its counts; report shows the histogram)"
bpfrec stat -b "$id" --hist -o hist.data -- $t/stat-prog -i "$id" -r 1000 -k 100 >hist.out 2>&1 ||
	{ cat hist.out; exit 1; }
kill $target
awk '{ print } / seconds time elapsed$/ { exit }' hist.out
echo "==== bpfrec report -i hist.data"
bpfrec report -i hist.data || exit
echo "==== bpfrec stat --bpf-counters: -a, and -- a shell loop while it counts"
bpfrec stat --bpf-counters -e cpu-clock -a >all.out 2>&1 &
all=$!
# the loop's session starts once the -a one holds its perf events, one per CPU
for _ in $(seq 2400); do
	[ "$(ls -l /proc/$all/fd 2>/dev/null | grep -c perf_event)" -ge "$(nproc)" ] && break
	sleep 0.25
done
bpfrec stat --bpf-counters -e cpu-clock -- sh -c 'i=0; while [ $i -lt 5000 ]; do i=$((i + 1)); done
	echo "perf events open while both count: $(ls -l /proc/[0-9]*/fd 2>/dev/null | grep -c perf_event) ($(nproc) CPUs)"' ||
	exit
kill -INT $all
wait $all || { cat all.out; exit 1; }
cat all.out
# Live and headless: top as plain lines (its stdout is a file) while a program is
# loaded, run 1000 times and freed, its last refresh shown; then one scrape of serve.
echo "==== bpfrec top -d 0.5 --filter stat_target  (the last refresh, as plain lines)"
bpfrec top -d 0.5 --filter stat_target >top.out 2>&1 &
top=$!
for _ in $(seq 100); do grep -q '^bpfrec top - ' top.out && break; sleep 0.1; done
$t/stat-prog -r 1000 -k 100 >top-prog.out || exit
for _ in $(seq 100); do grep -q '^event .* free ' top.out && break; sleep 0.1; done
sleep 1
kill -INT $top
wait $top || { cat top.out; exit 1; }
awk '/^bpfrec top - / { n = 0 } { l[n++] = $0 } END { for (i = 0; i < n; i++) print l[i] }' top.out
echo "==== bpfrec serve --listen 127.0.0.1:9476: a program loaded, run 1000 times and freed, then /metrics"
bpfrec serve -E --listen 127.0.0.1:9476 2>serve.err &
srv=$!
for _ in $(seq 100); do grep -q serving serve.err && break; sleep 0.1; done
cat serve.err
$t/stat-prog -r 1000 -k 100 >serve-prog.out || exit
# scraped until the free came (the kernel frees after an RCU grace period)
for _ in $(seq 50); do
	wget -q -O - http://127.0.0.1:9476/metrics >metrics.out || { kill $srv; exit 1; }
	grep -q '^bpfrec_lifecycle_events_total{kind="free",type="xdp",loader="stat-prog"}' metrics.out && break
	sleep 0.1
done
kill $srv
wait $srv
grep -E '^bpfrec_(prog_run[a-z_]*_total.*loader="stat-prog"|lifecycle_events_total.*loader="stat-prog"|self_)' metrics.out
# A profile: the program busy in BPF_PROG_TEST_RUN, sampled with stacks; stat-prog
# exits before the report, which names the program from the recorded KSYMBOL and BTF.
echo "==== bpfrec record -e cpu-clock -F 999 -g -o prof.data -- stat-prog -w 1000 -r 20000 -k 1000"
bpfrec record -e cpu-clock -F 999 -g -o prof.data -- $t/stat-prog -w 1000 -r 20000 -k 1000 \
	>prof.out || exit
cat prof.out
id=$(awk '$1 == "id" { print $2 }' prof.out)
echo "==== bpfrec script -i prof.data: program $id loaded, then unloaded"
bpfrec script -i prof.data | awk -v id="$id" '$5 ~ /^PROG_/ && $6 == id' || exit
echo "==== bpfrec report -i prof.data --sort dso,bpf"
bpfrec report -i prof.data --sort dso,bpf || exit
# Off CPU: ten sleeps of 50 ms in one function, with CPU samples in the same file.
echo "==== bpfrec record --off-cpu -e cpu-clock -F 99 -o offcpu.data -- sleeper -n 10 -m 50"
bpfrec record --off-cpu -e cpu-clock -F 99 -o offcpu.data -- $t/sleeper -n 10 -m 50 || exit
echo "==== bpfrec report -i offcpu.data --off-cpu --folded"
bpfrec report -i offcpu.data --off-cpu --folded || exit
echo "==== what the workload read back with BPF_OBJ_GET_INFO_BY_FD (demo.ids)"
cat demo.ids
SH
chmod +x "$work/demo.sh"
strip -o "$work/perf" "$("$TOP/scripts/build-perf.sh")"
"$TOP/scripts/vm.sh" "${vmargs[@]}" --quiet --output "$work/demo.out" \
	--add "$TOP/tools/bpfrec/bpfrec:/opt/bpfrec/bin" --add "$work/demo.sh:/opt/bpfrec/bin" \
	--add "$work/perf:/opt/bpfrec/bin" \
	--add "$TOP/tools/bpfrec/.output/guest:/opt/bpfrec/tests" \
	-- sh /opt/bpfrec/bin/demo.sh && rc=0 || rc=$?
cat "$work/demo.out"
[ -z "$out" ] || cp "$work/demo.out" "$out"
exit "$rc"
