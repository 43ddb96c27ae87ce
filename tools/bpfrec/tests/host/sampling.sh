#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of sampling: `bpfrec record -e EVENT` and `bpfrec script` on
# its samples, checked against Linux perf reading the same files and
# against workloads with known values.  Root on the host kernel.
#
#   BPFREC=path/to/bpfrec WORK=path/to/sample-work STAT_PROG=path/to/stat-prog \
#     tests/host/sampling.sh
#
# sample-work (tests/sampling/) spins in busy_inner(), calls getppid() or
# sleeps a known number of times; stat-prog (tests/stat/) keeps a BPF
# program busy with BPF_PROG_TEST_RUN.
# Last line: "sampling: N passed, N failed, N skipped"; exit 1 if anything failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
WORK=$(realpath "${WORK:-$here/../../.output/sample-work}")
STAT_PROG=${STAT_PROG:-$here/../../.output/stat-prog}
PERF=${PERF:-/usr/bin/perf}

. "$here/lib.sh"

host_setup sampling "$BPFREC" "$WORK" "$STAT_PROG"
have_perf=1
[ -x "$PERF" ] || have_perf=0

bg=
trap '[ -n "$bg" ] && kill $bg 2>/dev/null; rm -rf "$tmp"' EXIT

# usage NAME STATUS LINE ARGS...: bpfrec record ARGS... exits STATUS saying exactly LINE
usage() { one_line "$1" "$2" "$3" record -o "$tmp/bad.data" "${@:4}"; }

see="(see bpfrec record --help)"
usage "unknown tracepoint exits 2" 2 \
	"bpfrec record: unknown tracepoint 'sched:no_such_tp' (no /sys/kernel/tracing/events/sched/no_such_tp/id; see /sys/kernel/tracing/available_events)" \
	-e sched:no_such_tp --duration 1
usage "a path as tracepoint exits 2" 2 \
	"bpfrec record: '../sched:x' is not a tracepoint name, SUBSYS:NAME is $see" -e ../sched:x
usage "unknown event exits 2" 2 "bpfrec record: unknown event 'cpu-clocks' (bpfrec record --help lists them)" \
	-e cpu-clocks
for f in 0 abc -5 10x; do
	usage "-F '$f' exits 2" 2 "bpfrec record: -F wants a frequency in Hz, not '$f' $see" -e cpu-clock -F "$f"
done
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
usage "-F above the kernel's maximum exits 2" 2 \
	"bpfrec record: -F $((max + 1)) is above the kernel's maximum of $max Hz (kernel.perf_event_max_sample_rate) $see" \
	-e cpu-clock -F $((max + 1))
for c in 0 x; do
	usage "-c '$c' exits 2" 2 "bpfrec record: -c wants a period of at least 1, not '$c' $see" -e cpu-clock -c "$c"
done
usage "-F and -c exit 2" 2 "bpfrec record: -F and -c both set how often to sample: give one $see" \
	-e cpu-clock -F 99 -c 1000
# a pid that is free: above the kernel's pid_max
nopid=$(($(cat /proc/sys/kernel/pid_max) + 1))
usage "-p of a missing process exits 2" 2 "bpfrec record: -p $nopid: no such process" -e cpu-clock -p $nopid
usage "-t of a missing thread exits 2" 2 "bpfrec record: -t $nopid: no such thread" -e cpu-clock -t $nopid
usage "-p abc exits 2" 2 "bpfrec record: -p wants a process id, not 'abc' $see" -e cpu-clock -p abc
usage "-p without an event exits 2" 2 \
	"bpfrec record: -p and -t need something to record of their target: -e EVENT or --off-cpu $see" -p 1
usage "-p and a command exit 2" 2 "bpfrec record: sample one target: -a, -p PID, -t TID or a command (-a with a command samples every task while it runs) $see" \
	-e cpu-clock -p 1 -- true
if grep -q . /sys/bus/event_source/devices/cpu/type 2>/dev/null; then
	skip "cycles without a PMU exits 1" "this machine has a hardware PMU"
else
	usage "cycles without a PMU exits 1" 1 \
		"bpfrec record: event 'cycles' is not countable here: no hardware PMU (a VM?); sample cpu-clock instead" \
		-e cycles
fi
[ -e "$tmp/bad.data" ] && fail "bad input wrote no file" "$tmp/bad.data exists"

# perf_ok NAME FILE: perf script and perf report read FILE without a word on stderr
perf_ok() {
	local name=$1 file=$2 rc1 rc2
	if [ $have_perf -eq 0 ]; then
		skip "$name" "no $PERF"
		return
	fi
	"$PERF" script -i "$file" >"$tmp/perf.script" 2>"$tmp/perf.err1"
	rc1=$?
	"$PERF" report --stdio -i "$file" >"$tmp/perf.report" 2>"$tmp/perf.err2"
	rc2=$?
	if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ] || [ -s "$tmp/perf.err1" ] || [ -s "$tmp/perf.err2" ]; then
		fail "$name" "script exit $rc1, report exit $rc2: $(cat "$tmp/perf.err1" "$tmp/perf.err2" | head -c 300)"
	else
		pass "$name"
	fi
}

# ---- cpu-clock -F 999 -g on a busy loop ---------------------------------
"$BPFREC" record -e cpu-clock -F 999 -g -o "$tmp/busy.data" -- "$WORK" busy 1 >"$tmp/busy.out" 2>"$tmp/busy.err"
rc=$?
wpid=$(sed -n 's/^pid //p' "$tmp/busy.out")
result "record -e cpu-clock -F 999 -g -- busy loop" \
	"$([ $rc -eq 0 ] || echo "exit $rc: $(head -c 300 "$tmp/busy.err")")"
result "record says what it samples" \
	"$(grep -qx 'bpfrec record: sampling cpu-clock at 999 Hz with stacks on the command' "$tmp/busy.err" || head -c 300 "$tmp/busy.err")"
perf_ok "perf script and perf report read the cpu-clock -g file" "$tmp/busy.data"
if [ $have_perf -eq 1 ]; then
	# samples of the workload whose stack goes busy_inner <- busy_outer <- main
	"$PERF" script -F pid,ip,sym -i "$tmp/busy.data" 2>/dev/null | awk -v pid="$wpid" '
		/^ *[0-9]+ *$/ { flush(); cur = ($1 == pid); n = 0; next }
		NF >= 2 && cur { st[n++] = $2 }
		function flush() { if (cur && st[0] == "busy_inner" && st[1] == "busy_outer" && st[2] == "main") good++; total += cur }
		END { flush(); print good + 0, total + 0 }' >"$tmp/busy.counts"
	read -r good total <"$tmp/busy.counts"
	# 999 Hz while it runs: on a CPU shared with builds, 0.1 s at least
	result "perf walks busy_inner <- busy_outer <- main in most samples ($good of $total)" \
		"$([ "$total" -ge 100 ] && [ $((good * 10)) -ge $((total * 8)) ] || echo "$good of $total samples")"
	result "the workload's COMM and MMAP2 of its binary are recorded" \
		"$("$PERF" script --show-mmap-events --show-task-events -i "$tmp/busy.data" 2>/dev/null |
		   awk -v pid="$wpid" -v bin="$WORK" '
			$0 ~ "PERF_RECORD_COMM exec: sample-work:" pid "/" pid { comm = 1 }
			$0 ~ "PERF_RECORD_MMAP2 " pid "/" pid ":.* r-xp " bin "$" { mmap = 1 }
			END { if (!comm) print "no COMM exec"; if (!mmap) print "no MMAP2 of " bin }')"
	result "the kernel's map is recorded at _text" \
		"$("$PERF" script --show-mmap-events -i "$tmp/busy.data" 2>/dev/null |
		   grep -q "PERF_RECORD_MMAP -1/0: \[0x$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms | sed 's/^0*//')(0x[0-9a-f]*) @ 0x$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms | sed 's/^0*//')\]: x \[kernel.kallsyms\]_text" ||
		   echo "no MMAP of [kernel.kallsyms]_text")"
fi

# ---- -p: the threads of a running process, and nothing else ---------------
# it spins until killed, ahead of the builds that may share the CPUs: the
# recorder's start may take seconds on a loaded host
nice -n -10 "$WORK" busy 600 >"$tmp/p.out" &
bg=$!
ppid=$bg
# sampled from its exec on: it prints its pid first
wait_until 60 grep -q '^pid ' "$tmp/p.out"
"$BPFREC" record -e cpu-clock -F 199 -p $ppid -o "$tmp/p.data" --duration 1 2>"$tmp/p.err" >/dev/null
rc=$?
kill $bg
wait $bg 2>/dev/null
bg=
if [ $have_perf -eq 1 ]; then
	"$PERF" script -F pid,comm -i "$tmp/p.data" 2>/dev/null | sort | uniq -c >"$tmp/p.count"
	# one sample suffices: the CPUs may be shared with kernel builds
	result "-p PID: samples of that process only, named" \
		"$([ $rc -eq 0 ] && [ "$(wc -l <"$tmp/p.count")" -eq 1 ] &&
		   awk -v pid=$ppid '$2 == "sample-work" && $3 == pid && $1 >= 1 { ok = 1 } END { exit !ok }' "$tmp/p.count" ||
		   echo "exit $rc, $(cat "$tmp/p.count" | head -3)")"
	perf_ok "perf reads the -p file" "$tmp/p.data"
fi

# ---- a BPF program kept busy: samples inside its JIT image ----------------
"$BPFREC" record -e cpu-clock -F 999 -o "$tmp/bpf.data" -- "$STAT_PROG" -w 1000 -r 400000 -k 10000 \
	>"$tmp/bpf.out" 2>"$tmp/bpf.err"
rc=$?
if [ $have_perf -eq 1 ]; then
	# its image from the KSYMBOL record of our loader (the stat tests may
	# load the same program meanwhile), then the loader's samples in it
	lpid=$("$PERF" script -F pid -i "$tmp/bpf.data" 2>/dev/null | head -1 | tr -d ' ')
	"$PERF" script --show-bpf-events -i "$tmp/bpf.data" 2>/dev/null |
		awk -v pid="$lpid" '$2 == pid &&
			/PERF_RECORD_KSYMBOL .*flags 0x0 name bpf_prog_[0-9a-f]*_stat_target_with_a_long_name$/ {
			print $7, $9 }' >"$tmp/bpf.ksym"
	read -r addr len <"$tmp/bpf.ksym"
	# kernel addresses: 16 hex digits each, compared as strings
	from=$(printf '%016x' "$((16#${addr:-0}))")
	to=$(printf '%016x' "$((16#${addr:-0} + ${len:-0}))")
	"$PERF" script -F comm,ip -i "$tmp/bpf.data" 2>/dev/null |
		awk -v a="$from" -v e="$to" '$1 == "stat-prog" {
			n++; if (length($2) == 16 && $2 >= a && $2 < e) in_prog++ }
			END { print in_prog + 0, n + 0 }' >"$tmp/bpf.counts"
	read -r in_prog n <"$tmp/bpf.counts"
	result "samples in the busy program's JIT image ($in_prog of $n)" \
		"$([ $rc -eq 0 ] && [ -n "$addr" ] && [ "$in_prog" -ge 20 ] && [ $((in_prog * 2)) -gt "$n" ] ||
		   echo "exit $rc, image ${addr:-none}+${len:-0}, $in_prog of $n samples")"
	perf_ok "perf reads the file of the BPF program's samples" "$tmp/bpf.data"
fi

# ---- tracepoints: the known number of calls --------------------------------
"$BPFREC" record -e syscalls:sys_enter_getppid -o "$tmp/tp.data" -- "$WORK" getppid 7 \
	>"$tmp/tp.out" 2>"$tmp/tp.err"
rc=$?
tpid=$(sed -n 's/^pid //p' "$tmp/tp.out")
if [ $have_perf -eq 1 ]; then
	n=$("$PERF" script -F pid,event -i "$tmp/tp.data" 2>/dev/null |
	    awk -v pid="$tpid" '$1 == pid && $2 == "syscalls:sys_enter_getppid:"' | wc -l)
	result "syscalls:sys_enter_getppid: 7 calls, 7 samples" \
		"$([ $rc -eq 0 ] && [ "$n" -eq 7 ] || echo "exit $rc, $n samples: $(head -c 200 "$tmp/tp.err")")"
	perf_ok "perf script and perf report read the tracepoint file" "$tmp/tp.data"
fi

# ---- bpfrec script on the same files --------------------------------------
# script_rows FILE: bpfrec script's text, exit status checked, stderr empty
script_rows() {
	local rc
	"$BPFREC" script --width 0 -i "$1" >"$tmp/script.out" 2>"$tmp/script.err"
	rc=$?
	[ $rc -eq 0 ] && [ ! -s "$tmp/script.err" ] || echo "script exit $rc: $(head -c 200 "$tmp/script.err")"
}

# the workload's cpu-clock rows, and its stacks: bpfrec's and perf's, frame for frame
stacks_agree() {
	local file=$1 pid=$2 mine theirs
	# perf shows user addresses relative to their file: those are compared by place
	mine=$(awk -v pid="$pid" '/^ *[0-9]+\.[0-9]+ / { cur = ($3 == pid "/" pid && $5 == "cpu-clock");
		if (cur) printf "\n"; next }
		/^\t/ && cur { printf "%s ", length($1) == 16 ? $1 : "user" }' "$tmp/script.out" | sed '/^$/d')
	theirs=$("$PERF" script -F pid,ip -i "$file" 2>/dev/null | awk -v pid="$pid" '
		/^ *[0-9]+ *$/ { cur = ($1 == pid); if (cur) printf "\n"; next }
		NF && cur { printf "%s ", length($1) == 16 ? $1 : "user" }' | sed '/^$/d')
	if [ -z "$mine" ] || [ "$mine" != "$theirs" ]; then
		echo "$(echo "$mine" | wc -l) stacks, perf has $(echo "$theirs" | wc -l); first: '$(echo "$mine" | head -1)' vs '$(echo "$theirs" | head -1)'"
	fi
}

err=$(script_rows "$tmp/busy.data")
if [ $have_perf -eq 1 ] && [ -z "$err" ]; then
	err=$(stacks_agree "$tmp/busy.data" "$wpid")
fi
result "bpfrec script: the cpu-clock samples and stacks perf shows" "$err"
"$BPFREC" script --json -i "$tmp/busy.data" 2>/dev/null |
	grep '"event":"cpu-clock"' | grep -c '"callchain":\["' >"$tmp/json.count"
result "bpfrec script --json: the samples with their callchain" \
	"$([ "$(cat "$tmp/json.count")" -ge 100 ] || echo "$(cat "$tmp/json.count") samples with a callchain")"

err=$(script_rows "$tmp/bpf.data")
n=$(awk '$5 == "cpu-clock" && $7 ~ /^bpf_prog_[0-9a-f]+_stat_target_with_a_long_name$/ && $8 == "bpf"' "$tmp/script.out" | wc -l)
result "bpfrec script: samples in the BPF program by its image's name ($n)" \
	"$err$([ "$n" -ge 20 ] || echo "$n samples")"

err=$(script_rows "$tmp/tp.data")
n=$(awk -v p="$tpid/$tpid" '$3 == p && $5 == "tracepoint" && $8 == "syscalls:sys_enter_getppid" &&
	$NF == "__syscall_nr=110"' "$tmp/script.out" | wc -l)
result "bpfrec script: 7 sys_enter_getppid with __syscall_nr=110" "$err$([ "$n" -eq 7 ] || echo "$n rows")"

# sched_switch on the workload: its 5 sleeps are 5 switches out in state S
# (TASK_INTERRUPTIBLE, 1); a preemption would be state 0.  Its priority is
# 120 plus the nice value the tests run with (make check under nice -n 10).
# With -g every one of them has a kernel stack through do_nanosleep(), which
# must be named from the kallsyms the file carries: the frame's address less
# its offset is the symbol's address in /proc/kallsyms.  (A cpu-clock sample
# of a busy loop has kernel frames only when the tick lands in the kernel,
# which it may never do.)
"$BPFREC" record -e sched:sched_switch -g -o "$tmp/sw.data" -- "$WORK" sleep 5 20 >"$tmp/sw.out" 2>"$tmp/sw.err"
spid=$(sed -n 's/^pid //p' "$tmp/sw.out")
err=$(script_rows "$tmp/sw.data")
prio=$((120 + $(nice)))
n=$(grep -c " prev_comm=sample-work prev_pid=$spid prev_prio=$prio prev_state=1 next_comm=" "$tmp/script.out")
result "bpfrec script: sched_switch fields of 5 sleeps ($n)" "$err$([ "$n" -eq 5 ] || echo "$n switches out asleep")"

# kernel_names: why the sleeps' do_nanosleep frames are not named right, or nothing
kernel_names() {
	local want frames bad=0 f addr off
	want=$(awk '$3 == "do_nanosleep" { print $1; exit }' /proc/kallsyms)
	frames=$(awk -v p="prev_pid=$spid" '/^ *[0-9]+\.[0-9]+ / { cur = (index($0, p " ") && / prev_state=1 /); next }
		cur && /^\tffffffff[0-9a-f]+ do_nanosleep\+0x[0-9a-f]+$/ { print $1, $2 }' "$tmp/script.out")
	[ "$(echo "$frames" | grep -c .)" = 5 ] || { echo "$(echo "$frames" | grep -c .) of 5 sleeps have a do_nanosleep frame"; return; }
	while read -r addr f; do
		off=${f#do_nanosleep+0x}
		[ "$(printf '%016x' $((16#$addr - 16#$off)))" = "$want" ] || bad=$((bad + 1))
	done <<EOF
$frames
EOF
	[ $bad -eq 0 ] || echo "$bad frames named do_nanosleep+OFF are not at /proc/kallsyms' $want plus OFF"
}
result "bpfrec script names kernel frames from the file's kallsyms: do_nanosleep in 5 of 5 sleeps" \
	"$err$(kernel_names)"

# perf's own files, read by bpfrec
if [ $have_perf -eq 1 ]; then
	"$PERF" record -q -e cpu-clock -F 999 -g -o "$tmp/perf-cc.data" -- "$WORK" busy 0.5 >"$tmp/pcc.out" 2>/dev/null
	err=$(script_rows "$tmp/perf-cc.data")
	[ -z "$err" ] && err=$(stacks_agree "$tmp/perf-cc.data" "$(sed -n 's/^pid //p' "$tmp/pcc.out")")
	result "bpfrec script reads perf's cpu-clock -g file: its samples and stacks" "$err"
	"$PERF" record -q -e syscalls:sys_enter_getppid -o "$tmp/perf-tp.data" -- "$WORK" getppid 7 \
		>"$tmp/ptp.out" 2>/dev/null
	p=$(sed -n 's/^pid //p' "$tmp/ptp.out")
	err=$(script_rows "$tmp/perf-tp.data")
	n=$(awk -v p="$p/$p" '$3 == p && $8 == "syscalls:sys_enter_getppid" && $NF == "__syscall_nr=110"' \
		"$tmp/script.out" | wc -l)
	result "bpfrec script reads perf's tracepoint file: 7 rows, fields decoded" \
		"$err$([ "$n" -eq 7 ] || echo "$n rows")"
else
	skip "bpfrec script reads perf's files" "no $PERF"
fi

echo "sampling: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
