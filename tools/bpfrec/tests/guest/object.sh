# SPDX-License-Identifier: GPL-2.0
#
# Guest tests of `bpfrec record --object`, sourced by run.sh (its
# pass/fail/skip, $BPFREC, $tmp, $here): what the host kernel cannot do
# runs here, on the patched 6.1 kernel (kprobes, BPF trampolines, and the
# map/link/BTF records of the series).  POSIX sh and busybox tools only.
#
# Objects (tests/guest/guest.mk stages them in $here/objects):
#   execs.bpf.o       examples/: exec records through a PERF_EVENT_ARRAY
#   latency.bpf.o     examples/: hrtimer_nanosleep() latency, kprobe and
#                     kretprobe, through a ring buffer
#   trampoline.bpf.o  tests/host/objects/: fentry and fexit

OBJ=$here/objects
ob=$tmp/object
mkdir -p "$ob"

# balanced FILE NAME CREATE FREE: as many user-object CREATE as FREE lines
# of objects named NAME, at least one: the kernel released all it made
balanced() {
	c=$(grep -c " $3 *[0-9]* $2 .* user-object" "$1")
	f=$(grep -c " $4 *[0-9]* $2 .* user-object" "$1")
	if [ "$c" -ge 1 ] && [ "$c" -eq "$f" ]; then
		pass "object: $2: $c $3, $f $4, marked user-object"
	else
		fail "object: $2: as many $3 as $4, marked user-object" "$c $3, $f $4"
	fi
}

# no probes left in tracefs by a recorder that ended
no_probes() {
	tf=/sys/kernel/tracing
	[ -e $tf/kprobe_events ] || tf=/sys/kernel/debug/tracing
	if [ ! -e $tf/kprobe_events ]; then
		skip "object: $1: no kprobe left in tracefs" "tracefs not mounted"
	elif [ -s $tf/kprobe_events ] || { [ -e $tf/uprobe_events ] && [ -s $tf/uprobe_events ]; }; then
		fail "object: $1: no kprobe left in tracefs" "$(cat $tf/kprobe_events $tf/uprobe_events 2>/dev/null | head -n 3)"
	else
		pass "object: $1: no kprobe or uprobe left in tracefs"
	fi
}

if [ ! -f "$OBJ/execs.bpf.o" ]; then
	fail "object: setup" "$OBJ/execs.bpf.o missing"
else
	# --- exec records through a PERF_EVENT_ARRAY --------------------------
	N=3
	"$BPFREC" record --object "$OBJ/execs.bpf.o" -o "$ob/execs.data" -- \
		sh -c "/bin/true; /bin/true; /bin/true" >/dev/null 2>"$ob/err"
	rc=$?
	"$BPFREC" script -i "$ob/execs.data" >"$ob/execs.txt" 2>>"$ob/err"
	got=$(grep -c " bpf-output .* execs  *struct execs .* comm=true\$" "$ob/execs.txt")
	if [ $rc -eq 0 ] && [ "$got" -eq $N ]; then
		pass "object: execs example: $N execs of true, $N decoded records"
	else
		fail "object: execs example: $N execs of true, $N decoded records" \
			"exit $rc, $got records: $(head -n 2 "$ob/err" | tr '\n' ' ')"
	fi
	if [ "$lacks" = 1 ]; then
		skip "object: execs map and link records" "$reason"
		balanced "$ob/execs.txt" count_exec PROG_LOAD PROG_UNLOAD
	else
		balanced "$ob/execs.txt" count_exec PROG_LOAD PROG_UNLOAD
		balanced "$ob/execs.txt" execs MAP_CREATE MAP_FREE
		# the link is named after nothing: its program's attach is counted
		c=$(grep -c " LINK_ATTACH .* user-object" "$ob/execs.txt")
		f=$(grep -c " LINK_RELEASE .* user-object" "$ob/execs.txt")
		if [ "$c" -eq 1 ] && [ "$f" -eq 1 ]; then
			pass "object: execs: 1 LINK_ATTACH, 1 LINK_RELEASE, marked user-object"
		else
			fail "object: execs: 1 LINK_ATTACH, 1 LINK_RELEASE, marked user-object" "$c, $f"
		fi
	fi

	# --- kprobe and kretprobe, a ring buffer, --set ---------------------
	"$BPFREC" record --object "$OBJ/latency.bpf.o" -o "$ob/lat.data" -- \
		sh -c "sleep 1; sleep 1" >/dev/null 2>"$ob/err"
	rc=$?
	"$BPFREC" script -i "$ob/lat.data" >"$ob/lat.txt" 2>>"$ob/err"
	grep " ringbuf .* latency  *struct latency .* comm=sleep\$" "$ob/lat.txt" >"$ob/lat.rec"
	got=$(wc -l <"$ob/lat.rec")
	# ns=N: a second each, and less than two
	slow=$(sed -n 's/.* ns=\([0-9]*\) .*/\1/p' "$ob/lat.rec" |
		awk '$1 >= 1000000000 && $1 < 2000000000 { n++ } END { print n + 0 }')
	if [ $rc -eq 0 ] && [ "$got" -eq 2 ] && [ "$slow" -eq 2 ]; then
		pass "object: latency example: 2 sleeps of 1 s, 2 ringbuf records of 1 to 2 s"
	else
		fail "object: latency example: 2 sleeps of 1 s, 2 ringbuf records of 1 to 2 s" \
			"exit $rc, $got records, $slow of 1 s: $(head -n 2 "$ob/err" | tr '\n' ' ')"
	fi
	balanced "$ob/lat.txt" sleep_enter PROG_LOAD PROG_UNLOAD
	balanced "$ob/lat.txt" sleep_exit PROG_LOAD PROG_UNLOAD
	[ "$lacks" = 1 ] || balanced "$ob/lat.txt" latency MAP_CREATE MAP_FREE
	no_probes "latency example"

	"$BPFREC" record --object "$OBJ/latency.bpf.o" --set min_ns=1500000000 \
		-o "$ob/min.data" -- sleep 1 >/dev/null 2>"$ob/err"
	rc=$?
	got=$("$BPFREC" script -i "$ob/min.data" 2>/dev/null | grep -c " ringbuf .* comm=sleep\$")
	if [ $rc -eq 0 ] && [ "$got" -eq 0 ]; then
		pass "object: --set min_ns=1500000000: a 1 s sleep is not sent"
	else
		fail "object: --set min_ns=1500000000: a 1 s sleep is not sent" "exit $rc, $got records"
	fi

	# --- SIGINT and SIGTERM with kprobes attached --------------------------
	for sig in INT TERM; do
		"$BPFREC" record --object "$OBJ/latency.bpf.o" -o "$ob/sig.data" \
			>/dev/null 2>"$ob/err" &
		pid=$!
		# loaded and attached once the recorder is in its main loop
		wait_until 600 in_loop $pid
		kill -$sig $pid
		wait $pid
		rc=$?
		"$BPFREC" script -i "$ob/sig.data" >"$ob/sig.txt" 2>/dev/null
		if grep -q "records, [0-9]* programs" "$ob/err"; then
			pass "object: SIG$sig: the recording is finalised (exit $rc)"
		else
			fail "object: SIG$sig: the recording is finalised" "exit $rc: $(tail -n 2 "$ob/err" | tr '\n' ' ')"
		fi
		balanced "$ob/sig.txt" sleep_enter PROG_LOAD PROG_UNLOAD
		no_probes "SIG$sig"
	done

	# --- fentry and fexit --------------------------------------------------
	"$BPFREC" record --object "$OBJ/trampoline.bpf.o" -o "$ob/tr.data" -- sleep 0 \
		>/dev/null 2>"$ob/err"
	rc=$?
	"$BPFREC" script -i "$ob/tr.data" >"$ob/tr.txt" 2>/dev/null
	if [ $rc -eq 0 ]; then
		pass "object: fentry/fexit attached (exit 0)"
	else
		fail "object: fentry/fexit attached" "exit $rc: $(head -n 2 "$ob/err" | tr '\n' ' ')"
	fi
	balanced "$ob/tr.txt" enter PROG_LOAD PROG_UNLOAD
	balanced "$ob/tr.txt" leave PROG_LOAD PROG_UNLOAD
	if [ "$lacks" != 1 ]; then
		got=$(grep -c " LINK_ATTACH .* tracing .* user-object" "$ob/tr.txt")
		if [ "$got" -eq 2 ]; then
			pass "object: fentry/fexit: 2 tracing links, marked user-object"
		else
			fail "object: fentry/fexit: 2 tracing links, marked user-object" \
				"$got: $(grep LINK_ATTACH "$ob/tr.txt" | head -n 2)"
		fi
	fi
fi
