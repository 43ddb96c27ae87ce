#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of what `bpfrec record` says and writes while it runs: its
# start line comes only once every event is enabled (a workload started
# when the line appears is recorded from its first program on); a loss
# that no later record follows is still counted, said and kept in the
# file; `-o -` streams the records as they are read.  Each test waits on
# the recorder's own output through a FIFO, never on a time.  Root.
#
#   BPFREC=path/to/bpfrec STORM=path/to/storm tests/host/live.sh
#
# Needs python3 and Linux perf.  Last line: "N passed, N failed[, N skipped]".
set -u

here=$(cd "$(dirname "$0")" && pwd)
STORM=${STORM:-$here/../../.output/storm}
PERF=${PERF:-/usr/bin/perf}

. "$here/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "live tests need root" >&2; exit 1; }
for t in "$BPFREC" "$STORM"; do
	[ -x "$t" ] || { echo "missing $t: run 'make' first" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/bpfrec-live.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# loaded ID FILE: "ok" if FILE has the PROG_LOAD of program ID, else what it has
loaded() {
	"$BPFREC" script -i "$2" --json 2>/dev/null | python3 -c '
import json, sys
want = int(sys.argv[1])
ids = [json.loads(l)["id"] for l in sys.stdin if "\"PROG_LOAD\"" in l]
print("ok" if want in ids else "no PROG_LOAD of %d among %d" % (want, len(ids)))' "$1"
}

# start_rec FILE ARGS...: record into FILE with ARGS in the background ($pid),
# its stderr read through a FIFO (fd 4) up to the start line, kept in $tmp/rec.err
start_rec() {
	local f=$1 line
	shift
	rm -f "$tmp/err.fifo"
	mkfifo "$tmp/err.fifo"
	"$BPFREC" record -o "$f" "$@" 2>"$tmp/err.fifo" &
	pid=$!
	exec 4<"$tmp/err.fifo"
	: >"$tmp/rec.err"
	while IFS= read -r line <&4; do
		printf '%s\n' "$line" >>"$tmp/rec.err"
		case $line in
		"bpfrec record: recording "*) break ;;
		esac
	done
}
# end_rec: the rest of its stderr, until it exits; its status in $rc
end_rec() {
	cat <&4 >>"$tmp/rec.err"
	exec 4<&-
	wait $pid 2>/dev/null
	rc=$?
}

# The start line.  The recorder's stderr is a FIFO read line by line; the
# moment its line "recording ..." arrives, a storm loads one program and
# closes it at once, too early for the listing of existing objects to
# find it: only the enabled events can have seen it.  With samples (-e
# cpu-clock -a) the recorder lists every task before it starts, which
# widens the window a line said too early opens.  Three runs each: every
# run must have the program.
start_line() {
	local name=$1 i rc id got bad=""
	shift
	for i in 1 2 3; do
		rm -f "$tmp/first.list"
		start_rec "$tmp/first.data" "$@" >/dev/null
		"$STORM" -n 1 -p first$i -l "$tmp/first.list"
		kill -INT $pid
		end_rec
		id=$(cut -d' ' -f1 "$tmp/first.list")
		got=$(loaded "${id:-0}" "$tmp/first.data")
		if [ $rc -ne 130 ] || [ "$got" != ok ]; then
			bad="run $i: exit $rc, $got: $(tr '\n' ' ' <"$tmp/rec.err" | head -c 300)"
			break
		fi
	done
	result "$name" "$bad"
}
start_line "start line: a workload started when it appears is recorded"
start_line "start line with -e cpu-clock -a: a workload started when it appears is recorded" \
	-e cpu-clock -a

# A loss with nothing after it.  The kernel writes a LOST record only
# before the next record that fits in the ring: a recorder stopped while
# a storm overflows its one-page ring of CPU 0, then told to stop (SIGINT
# queued while it is stopped) and continued, drains that ring and stops
# with no record after the loss.  The loss must still be counted, said on
# stderr and kept in the file: at least the storm's records missing from
# it (a KSYMBOL and a BPF_EVENT per program), the same count in the
# summary, in bpfrec report, in bpfrec script's LOST records and in perf's
# report.
start_rec "$tmp/lost.data" -m 1 >/dev/null
kill -STOP $pid
taskset -c 0 "$STORM" -n 500 -p lostend -l "$tmp/lost.list" >/dev/null
kill -INT $pid
kill -CONT $pid
end_rec
said=$(sed -n 's/^bpfrec record: LOST \([0-9]*\) records.*/\1/p' "$tmp/rec.err")
"$BPFREC" script -i "$tmp/lost.data" --json >"$tmp/lost.json" 2>/dev/null
python3 - "$tmp/lost.list" "$tmp/lost.json" "${said:-0}" >"$tmp/lost.check" <<'PY'
import json, sys
ids = {int(l.split()[0]) for l in open(sys.argv[1])}
recs = [json.loads(l) for l in open(sys.argv[2])]
loads = {r["id"] for r in recs if r["event"] == "PROG_LOAD" and r["id"] in ids}
lost = sum(r["details"]["lost"] for r in recs if r["event"] == "LOST")
said = int(sys.argv[3])
missing = 2 * (len(ids) - len(loads))
ok = len(ids) == 500 and missing > 0 and lost == said and lost >= missing
print("ok %d" % lost if ok else "%d of %d loads in the file, %d lost in LOST records, %d said" %
      (len(loads), len(ids), lost, said))
PY
read -r verdict lost <"$tmp/lost.check"
rep=$("$BPFREC" report -i "$tmp/lost.data" 2>/dev/null | sed -n 's/^# lost records: \([0-9]*\) .*/\1/p')
perf_lost=$("$PERF" report --stats -i "$tmp/lost.data" 2>/dev/null |
	sed -n 's/^ *LOST events: *\([0-9]*\).*/\1/p' | head -1)
result "a loss with no record after it: counted, said, in the file (bpfrec script, report, perf)" "$(
	[ $rc -eq 130 ] || echo "exit $rc;"
	[ "$verdict" = ok ] || echo "$verdict $lost;"
	[ "$verdict" != ok ] || [ "$rep" = "$lost" ] || echo "report says ${rep:-nothing}, want $lost;"
	[ "${perf_lost:-0}" -gt 0 ] || echo "perf report --stats: no LOST events;")"

# -o - streams live.  The recorder's stdout goes through a FIFO to tee
# (which keeps the stream) and perf script, whose lines are read through
# another FIFO.  The workload loads and closes a program, says so through
# a FIFO, and waits on a third one for the test to let it exit: perf must
# show the program's PROG_LOAD while the workload still waits.  Then the
# recorder is killed with SIGKILL, and the stream it left is read whole
# by bpfrec script and perf script.
if [ -x "$PERF" ] && command -v stdbuf >/dev/null; then
	rm -f "$tmp/stream.fifo" "$tmp/perf.fifo" "$tmp/ready" "$tmp/go"
	mkfifo "$tmp/stream.fifo" "$tmp/perf.fifo" "$tmp/ready" "$tmp/go"
	tee "$tmp/stream.data" <"$tmp/stream.fifo" |
		stdbuf -oL "$PERF" script -i - --show-bpf-events >"$tmp/perf.fifo" 2>"$tmp/perf.err" &
	reader=$!
	exec 5<"$tmp/perf.fifo"
	start_rec - -- sh -c '"$1" -n 1 -p livepipe -l "$2" >/dev/null; echo loaded >"$3"; read x <"$4"' \
		sh "$STORM" "$tmp/pipe.list" "$tmp/ready" "$tmp/go" >"$tmp/stream.fifo"
	read -r _ <"$tmp/ready"
	id=$(cut -d' ' -f1 "$tmp/pipe.list")
	seen=""
	while IFS= read -r -t 60 line <&5; do
		case $line in
		*"PERF_RECORD_BPF_EVENT type 1, flags 0, id $id") seen=yes; break ;;
		esac
	done
	# only now may the workload exit
	kill -KILL $pid
	echo go >"$tmp/go"
	end_rec
	cat <&5 >/dev/null
	exec 5<&-
	wait $reader
	result "-o -: perf script shows the workload's program while the workload runs" "$(
		[ -n "$seen" ] || echo "no PERF_RECORD_BPF_EVENT of id $id within 60 s:" \
			"$(tr '\n' ' ' <"$tmp/rec.err" | head -c 300)")"
	got=$(loaded "$id" "$tmp/stream.data")
	"$BPFREC" script -i "$tmp/stream.data" >/dev/null 2>"$tmp/script.err"
	src=$?
	"$PERF" script -i "$tmp/stream.data" --show-bpf-events >"$tmp/perf2.out" 2>"$tmp/perf2.err"
	prc=$?
	result "-o -: the stream a SIGKILL cut is read by bpfrec script and perf script" "$(
		[ $rc -eq 137 ] || echo "recorder exit $rc, want 137;"
		[ "$got" = ok ] || echo "bpfrec script: $got;"
		[ $src -eq 0 ] || echo "bpfrec script exit $src: $(head -c 200 "$tmp/script.err");"
		[ $prc -eq 0 ] && grep -q "PERF_RECORD_BPF_EVENT type 1, flags 0, id $id\$" "$tmp/perf2.out" ||
			echo "perf script exit $prc: $(head -c 200 "$tmp/perf2.err")")"
else
	skip "-o - streamed live" "needs $PERF and stdbuf"
fi

if [ $skipped -gt 0 ]; then
	echo "live: $passed passed, $failed failed, $skipped skipped"
else
	echo "live: $passed passed, $failed failed"
fi
[ $failed -eq 0 ]
