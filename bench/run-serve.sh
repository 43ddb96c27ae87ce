#!/bin/bash
# What `bpfrec serve` costs, beside the peer that exporters and bpftop use:
# listing every program with `bpftool prog show -j` (BPF_ENABLE_STATS held the
# same way), polled once a second.  In one run, on the host:
#   scrape: the daemon's CPU per scrape of /metrics with 1000 running programs
#     (bench/prog_hold.c), beside one `bpftool prog show -j` of the same 1000.
#     Goal: <= 20 ms of the daemon's CPU per scrape.
#   churn: programs loaded and freed at about 100 per second, each living 3 ms
#     (bench/storm.c -k 3000, copied as bench-churn so that its loader's comm is
#     this run's alone), scraped once a second: the daemon's CPU as % of one
#     CPU, and the programs its counters missed; beside bpftool polled once a
#     second, its CPU and the programs it never saw.  Goal: <= 1 % of one CPU.
# CPU is user + system time from /proc/PID/stat (the daemon) or wait4()
# (each bpftool run).  Other work on the machine runs beside it:
# the figures of both sides are from the same minutes.
#   usage: bench/run-serve.sh [--scrapes N] [--seconds S]
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

scrapes=50
seconds=20
while [ $# -gt 0 ]; do
	case "$1" in
	--scrapes) scrapes=$2; shift ;;
	--seconds) seconds=$2; shift ;;
	*) echo "usage: $0 [--scrapes N] [--seconds S]" >&2; exit 2 ;;
	esac
	shift
done
[ "$(id -u)" -eq 0 ] || die "needs root"
command -v curl >/dev/null || die "needs curl"

tools=$TOP/tools/bpfrec
work=$CACHE/bench-serve
mkdir -p "$work"
rm -f "$work"/*.out "$work"/*.json
stage "building bpfrec and the benchmark's programs"
logged "$CACHE/logs/bpfrec-build.$$.log" make -C "$tools" bpfrec .output/storm
gcc -O2 -Wall -Wextra -Werror -o "$work/prog_hold" "$TOP/bench/prog_hold.c" -lbpf
cp "$tools/.output/storm" "$work/bench-churn"

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true' EXIT

# timed OUT CMD...: run CMD (its stdout to OUT), append its user + system seconds
# (wait4(), microseconds: /usr/bin/time rounds to 10 ms) to $work/timed.out
timed() {
	python3 -c '
import os, sys
out = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
pid = os.fork()
if pid == 0:
    os.dup2(out, 1)
    os.execvp(sys.argv[2], sys.argv[2:])
ru = os.wait4(pid, 0)[2]
print("%.6f" % (ru.ru_utime + ru.ru_stime))' "$@" >>"$work/timed.out"
}

# cpu PID: its user + system seconds so far
cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat"
}

# serve: start a daemon; sets spid and port
serve() {
	"$tools/bpfrec" serve --listen 127.0.0.1:0 -E 2>"$work/serve.err" &
	spid=$!
	pids+=($spid)
	port=
	while [ -z "$port" ]; do
		kill -0 $spid 2>/dev/null || die "bpfrec serve did not start: $(cat "$work/serve.err")"
		sleep 0.1
		port=$(sed -n 's|^bpfrec serve: serving http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$work/serve.err")
	done
}
scrape() { curl -s "http://127.0.0.1:$port/metrics"; }

# --- a scrape of 1000 programs ----------------------------------------------
stage "scrape: $scrapes scrapes of 1000 running programs, vs $scrapes runs of bpftool prog show -j"
"$work/prog_hold" -n 1000 -r 10 >"$work/hold.out" &
hold=$!
pids+=($hold)
while ! grep -q '^held' "$work/hold.out"; do sleep 0.2; done
serve
scrape >/dev/null	# the first look learns the programs: not a steady scrape
c0=$(cpu $spid)
for ((i = 0; i < scrapes; i++)); do
	scrape >"$work/scrape.out"
done
c1=$(cpu $spid)
held=$(grep -c '^bpfrec_prog_id_runs_total{.*name="bench_held"' "$work/scrape.out" || true)
in_handler=$(awk '/^bpfrec_self_scrape_cpu_seconds_total / { s = $2 } /^bpfrec_self_scrapes_total / { n = $2 }
	END { printf "%.3f", n ? 1000 * s / n : 0 }' "$work/scrape.out")
: >"$work/timed.out"
for ((i = 0; i < scrapes; i++)); do
	timed "$work/bpftool.json" bpftool prog show -j
done
kill $spid $hold
wait $spid $hold 2>/dev/null || true
per_scrape=$(awk -v a="$c0" -v b="$c1" -v n=$scrapes 'BEGIN { printf "%.3f", 1000 * (b - a) / n }')
per_list=$(awk -v n=$scrapes '{ s += $1 } END { printf "%.3f", 1000 * s / n }' "$work/timed.out")

# --- 100 loads per second ---------------------------------------------------
n=$((seconds * 100))
stage "churn: $n programs at about 100 per second, each living 3 ms, scraped every second; bpftool polled every second"
serve
scrape >/dev/null
c0=$(cpu $spid)
t0=$(date +%s.%N)
"$work/bench-churn" -n $n -k 3000 -p churn >"$work/churn.out" 2>&1 &
churn=$!
pids+=($churn)
: >"$work/seen.out"
: >"$work/timed.out"
polls=0
# once a second on the clock, as a scraper and a poller are: an overrun is not made up
next=$(date +%s.%N)
while kill -0 $churn 2>/dev/null; do
	scrape >/dev/null
	timed "$work/poll.json" bpftool prog show -j
	python3 -c '
import json, sys
for p in json.load(open(sys.argv[1])):
    if p.get("name", "").startswith("churn"):
        print(p["name"])' "$work/poll.json" >>"$work/seen.out"
	polls=$((polls + 1))
	next=$(awk -v n="$next" 'BEGIN { printf "%.3f", n + 1 }')
	wait_s=$(awk -v n="$next" -v t="$(date +%s.%N)" 'BEGIN { d = n - t; printf "%.3f", (d > 0 ? d : 0) }')
	sleep "$wait_s"
done
wait $churn || die "the churn failed: $(cat "$work/churn.out")"
t1=$(date +%s.%N)
sleep 1	# the last frees reach the daemon's ring
scrape >"$work/churn-scrape.out"
c1=$(cpu $spid)
kill $spid
wait $spid 2>/dev/null || true
counted=$(awk '/^bpfrec_lifecycle_events_total\{kind="free",.*loader="bench-churn"\}/ { s += $2 } END { print s + 0 }' \
	"$work/churn-scrape.out")
seen=$(sort -u "$work/seen.out" | wc -l)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
serve_pct=$(awk -v a="$c0" -v b="$c1" -v w="$wall" 'BEGIN { printf "%.2f", 100 * (b - a) / w }')
poll_pct=$(awk -v w="$wall" '{ s += $1 } END { printf "%.2f", 100 * s / w }' "$work/timed.out")
rate=$(awk -v n=$n -v w="$wall" 'BEGIN { printf "%.0f", n / w }')

echo
echo "bpfrec serve vs bpftool prog show -j (host, $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg)):"
printf '  scrape of 1000 running programs (%s per-program series): daemon CPU %s ms per scrape (%s ms in the handler); bpftool prog show -j %s ms per listing: serve/bpftool %s (goal <= 20 ms)\n' \
	"$held" "$per_scrape" "$in_handler" "$per_list" \
	"$(awk -v a="$per_scrape" -v b="$per_list" 'BEGIN { printf "%.2f", b ? a / b : 0 }')"
printf '  %d programs at %s loads/s for %.1f s, each living 3 ms: daemon CPU %s %% of one CPU (goal <= 1 %%), counted %d freed (missed %d); bpftool every second (%d polls) %s %% of one CPU, saw %d (missed %d)\n' \
	$n "$rate" "$wall" "$serve_pct" "$counted" $((n - counted)) $polls "$poll_pct" "$seen" $((n - seen))
