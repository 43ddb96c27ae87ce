#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of `bpfrec serve`: run as root on the host kernel.
#
#   BPFREC=path/to/bpfrec STAT_PROG=path/to/stat-prog tests/host/serve.sh
#
# Two `bpfrec serve` instances stand for two hosts (instance labels
# host-a and host-b; both see this one kernel).  Debian's prometheus,
# started here on loopback with a configuration written here, scrapes
# them every 4 seconds.  The workload is stat-prog (tests/stat/) copied as
# h25wl and this shell's pid, so that its loader label is this run's alone,
# even beside another run of this test (two rehearsals at once counted each
# other's runs when both used the name h25wl): a program loaded,
# seen by a scrape at 0 runs, run 1000 times and freed; then the same
# program again, loaded, run and freed between two scrapes.  PromQL over
# Prometheus' HTTP API must give each instance exactly the runs of both.
# Every wait is for a state (a line, a scrape, a sample), with a limit.
# Needs python3 and curl; prometheus is skipped when missing.
# Last line: "serve: N passed, N failed, N skipped"; exit 1 if anything failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
STAT_PROG=${STAT_PROG:-$here/../../.output/stat-prog}

. "$here/lib.sh"

host_setup serve "$BPFREC" "$STAT_PROG"

pids=()
cleanup() {
	local p

	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

see="(see bpfrec serve --help)"
one_line "--listen without a port exits 2" 2 \
	"bpfrec serve: --listen wants ADDR:PORT like 127.0.0.1:9476, not '127.0.0.1' $see" \
	serve --listen 127.0.0.1
one_line "--max-names 0 exits 2" 2 "bpfrec serve: --max-names wants 1 to 1000000, not '0' $see" \
	serve --max-names 0
one_line "an argument exits 2" 2 "bpfrec serve: unexpected argument 'x' $see" serve x

# serve NAME ARGS...: start an instance; sets port (from its first line)
serve() {
	local name=$1 i

	shift
	"$BPFREC" serve --listen 127.0.0.1:0 --events "$tmp/$name.json" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" &
	pids+=($!)
	port=
	for ((i = 0; i < 150; i++)); do
		port=$(sed -n 's|^bpfrec serve: serving http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$tmp/$name.err" 2>/dev/null)
		[ -n "$port" ] && return 0
		sleep 0.1
	done
	echo "serve $name did not start: $(cat "$tmp/$name.err")" >&2
	return 1
}

serve a || exit 1
port_a=$port
serve b || exit 1
port_b=$port

result "serve says the run time stats' cost at start" \
	"$(grep -q 'two clock reads per BPF program run' "$tmp/a.err" || cat "$tmp/a.err")"
one_line "a port in use: one line, exit 1" 1 \
	"bpfrec serve: cannot listen on 127.0.0.1:$port_a: Address already in use" \
	serve --listen "127.0.0.1:$port_a"

code=$(curl -s -o "$tmp/404" -w '%{http_code}' "http://127.0.0.1:$port_a/nothing")
result "another path: 404" "$([ "$code" = 404 ] || echo "got $code")"
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	# the body through stdout: nobody cannot write into $tmp
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		curl -s -w '\n%{http_code}' "http://127.0.0.1:$port_a/metrics" >"$tmp/403"
	code=$(tail -1 "$tmp/403")
	result "a user who cannot read BPF stats is refused (403, the uid named)" \
		"$([ "$code" = 403 ] && grep -q "uid $(id -u nobody) may not read" "$tmp/403" ||
			echo "got $code: $(head -c 200 "$tmp/403")")"
else
	skip "a user who cannot read BPF stats is refused" "setpriv or user nobody missing"
fi
curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' \
	"http://127.0.0.1:$port_a/metrics" -D "$tmp/om.h" -o "$tmp/om"
result "OpenMetrics when asked: its content type, # EOF last" \
	"$(grep -qi '^content-type: application/openmetrics-text' "$tmp/om.h" &&
		[ "$(tail -1 "$tmp/om")" = "# EOF" ] || head -3 "$tmp/om.h")"

# lifecycle only: the stats stay off, said at start, no run counters
serve lc --lifecycle-only || exit 1
curl -s "http://127.0.0.1:$port/metrics" >"$tmp/lc.metrics"
result "--lifecycle-only: said at start, no run counters, bpfrec_run_time_stats 0" \
	"$(grep -q 'lifecycle only: the BPF run time stats stay off' "$tmp/lc.err" &&
		! grep -q '^bpfrec_prog_runs_total' "$tmp/lc.metrics" &&
		grep -qx 'bpfrec_run_time_stats 0' "$tmp/lc.metrics" || echo "$(cat "$tmp/lc.err")")"

if ! command -v prometheus >/dev/null; then
	skip "Prometheus scrapes two instances" "prometheus missing (scripts/deps.sh)"
	echo "serve: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit
fi

# --- a real Prometheus ------------------------------------------------------
# Each target is scraped every $interval seconds at an offset of its own,
# which Prometheus derives from a hash: the two instances' scrapes may
# follow each other closely, on one machine every time.  The short-lived
# program below is run in the longer of the two gaps, at least half the
# interval, so it fits however the offsets fall and however loaded the
# machine is.
interval=4
prom_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$tmp/prometheus.yml" <<EOC
global:
  scrape_interval: ${interval}s
  scrape_timeout: 2s
scrape_configs:
  - job_name: bpfrec
    static_configs:
      - targets: ['127.0.0.1:$port_a']
        labels: { instance: host-a }
      - targets: ['127.0.0.1:$port_b']
        labels: { instance: host-b }
EOC
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$prom_port" --log.level=warn >"$tmp/prom.log" 2>&1 &
pids+=($!)
api="http://127.0.0.1:$prom_port/api/v1"

# q QUERY [TIME]: the instant vector as "INSTANCE VALUE" lines, sorted
q() {
	curl -s --get "$api/query" --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"} |
		python3 -c '
import json, sys
d = json.load(sys.stdin)
for r in d["data"]["result"]:
    print(r["metric"].get("instance", "-"), r["value"][1])' 2>/dev/null | sort
}

both_up() { [ "$(q 'up == 1' | awk '{ print $1 }' | tr '\n' ' ')" = "host-a host-b " ]; }
wait_until 60 both_up
result "Prometheus: both instances up" "$(both_up || echo "up: $(q up | tr '\n' ';') $(tail -3 "$tmp/prom.log")")"

loader=h25wl$$
cp "$STAT_PROG" "$tmp/$loader"
sel='bpfrec_prog_runs_total{name="stat_target_with_a_long_name",type="xdp",loader="'$loader'"}'

# 1. loaded, seen at 0 runs by both, then run 1000 times and freed
mkfifo "$tmp/cue"
"$tmp/$loader" -W -r 1000 -k 100 <"$tmp/cue" >"$tmp/held.out" &
wl=$!
exec 3>"$tmp/cue"
wait_until 10 grep -q '^id ' "$tmp/held.out"
seen_at_zero() { [ "$(q "$sel == 0" | awk '{ print $1 }' | tr '\n' ' ')" = "host-a host-b " ]; }
wait_until 30 seen_at_zero
result "the first program is scraped at 0 runs by both" "$(seen_at_zero || q "$sel")"
echo go >&3
exec 3>&-
wait $wl

# 2. loaded, run 1000 times and freed between two scrapes of both: run it
# right after a scrape, and check with the scrape times that no scrape of
# either instance fell within its life (else once more: its runs count too)
tries=0
between=
scrape_times() {
	curl -s --get "$api/query" --data-urlencode "query=up[1h]" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["data"]["result"]:
    for t, v in r["values"]:
        print("%.3f" % float(t))'
}
event_time() {	# event_time EVENT ID: its unix time in seconds, from host-a's JSON lines
	python3 - "$tmp/a.json" "$1" "$2" <<'EOP'
import json, sys, datetime
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event"] == sys.argv[2] and e["prog_id"] == int(sys.argv[3]):
        t = datetime.datetime.strptime(e["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
        print("%.3f" % t.replace(tzinfo=datetime.timezone.utc).timestamp())
        break
EOP
}
# to_gap: the seconds from now to 0.3 s after the next scrape that opens the
# longer of the two gaps between the instances' scrapes. Each instance is
# scraped every $interval s at an offset of its own, so the time comes from
# each one's last scrape. Polling for that scrape instead noticed it too late
# on a loaded machine (two runs of this test beside two guests): in 5 tries
# the program's life always reached the other instance's next scrape.
to_gap() {
	q 'timestamp(up)' | awk -v i="$interval" -v now="$(date +%s.%N)" '
		{ t[$1] = $2 }
		END {
			if (!("host-a" in t) || !("host-b" in t)) {
				print 0
				exit
			}
			d = t["host-b"] - t["host-a"]
			d -= i * int(d / i)
			if (d < 0)
				d += i
			o = d >= i / 2 ? t["host-a"] : t["host-b"]
			at = o + i * (int((now - o) / i) + 1) + 0.3
			printf "%.3f\n", at - now
		}'
}
while [ $tries -lt 5 ] && [ -z "$between" ]; do
	tries=$((tries + 1))
	sleep "$(to_gap)"
	"$tmp/$loader" -r 1000 -k 100 >"$tmp/short.out"
	id=$(awk '$1 == "id" { print $2 }' "$tmp/short.out")
	free_seen() { [ -n "$(event_time free "$id")" ]; }
	wait_until 10 free_seen
	load=$(event_time load "$id")
	free=$(event_time free "$id")
	# a scrape 20 ms around its life could have seen it alive: not "between"
	inside=$(scrape_times | awk -v l="$load" -v f="$free" '$1 >= l - 0.02 && $1 <= f + 0.02' | wc -l)
	[ "$inside" -eq 0 ] && between=$id
done
result "a program loaded, run and freed between two scrapes (try $tries)" \
	"$([ -n "$between" ] || echo "every try overlapped a scrape")"
want=$((1000 * (1 + tries)))

# Both instances scraped after the last free: the totals are final.
last_free=$(event_time free "$id")
# Both instances scraped, and up, after the last free: the totals are
# final at the later of the two scrapes, where every query is evaluated
# (a scrape that fails later, on a busy machine, marks the series stale).
last_free=$(event_time free "$id")
scraped_after() {
	at=$(curl -s "$api/targets" | python3 -c '
import json, sys, datetime
t = float(sys.argv[1])
ok, last = 0, 0
for tg in json.load(sys.stdin)["data"]["activeTargets"]:
    ls = tg["lastScrape"].rstrip("Z")[:26]
    ts = datetime.datetime.strptime(ls, "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc).timestamp()
    if ts > t + 0.1 and tg["health"] == "up":
        ok += 1
        last = max(last, ts)
if ok == 2:
    print("%.3f" % (last + 0.5))' "$last_free")
	[ -n "$at" ]
}
wait_until 60 scraped_after
result "both instances scraped after the last free" "$([ -n "$at" ] || echo "not within 60 s")"
# The samples of a scrape are committed after lastScrape is set: wait
# until both instances' series answer at that time, however loaded the
# machine is, rather than for a fixed second.
qa() { q "$1" "$at"; }
both_committed() {
	[ "$(qa "count by (instance)($sel)" | awk '{ print $1 }' | tr '\n' ' ')" = "host-a host-b " ]
}
wait_until 60 both_committed

got=$(qa "sum by (instance)($sel)" | tr '\n' ';')
result "PromQL: each instance's total is the workloads' $want runs" \
	"$([ "$got" = "host-a $want;host-b $want;" ] || echo "got '$got'")"
got=$(qa "sum by (name)($sel)" | awk '{ print $2 }')
result "PromQL: sum by (name) over both instances is $((2 * want))" \
	"$([ "$got" = $((2 * want)) ] || echo "got '$got'")"
# increase() and rate() over the name's series up to its last sample: the
# series was there at 0 before the first run, so nothing is extrapolated
for inst in host-a host-b; do
	t=$(qa "timestamp(${sel%\}},instance=\"$inst\"})" | awk '{ print $2 }')
	inc=$(qa "sum by (name)(increase(${sel%\}},instance=\"$inst\"}[10m] @ $t))" | awk '{ print $2 }')
	rate=$(qa "sum by (name)(rate(${sel%\}},instance=\"$inst\"}[10m] @ $t))" | awk '{ print $2 }')
	result "PromQL $inst: increase() is $want within 1 %, the short-lived program's runs included" \
		"$(awk -v v="${inc:-0}" -v w=$want 'BEGIN { if (v < w * 0.99 || v > w * 1.01) print "got " v }')"
	result "PromQL $inst: rate() * 600 s is $want within 1 %" \
		"$(awk -v v="${rate:-0}" -v w=$want 'BEGIN { if (v * 600 < w * 0.99 || v * 600 > w * 1.01) print "got " v }')"
done
got=$(qa "sum by (instance)(bpfrec_lifecycle_events_total{kind=\"free\",type=\"xdp\",loader=\"$loader\"})" | tr '\n' ';')
result "PromQL: the frees of the workload's $((1 + tries)) programs by loader" \
	"$([ "$got" = "host-a $((1 + tries));host-b $((1 + tries));" ] || echo "got '$got'")"
result "JSON lines: the short-lived program's load and free, by $loader" \
	"$(grep "\"prog_id\":$id," "$tmp/a.json" | grep -c "\"comm\":\"$loader\"" | grep -qx 2 ||
		grep "\"prog_id\":$id," "$tmp/a.json")"

echo "serve: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
