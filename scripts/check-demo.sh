#!/bin/bash
# The `make run` demo as a test: run it as a user would (scripts/run-demo.sh) and assert
# what it printed. The workload reads back every object it created (demo.ids, the last
# section of the demo), so the checks know the exact ids:
#   - the demo's three commands ran and the guest exited 0;
#   - `bpfrec script`: one creation and one release line per object, by the workload,
#     with the name, type and tag the workload read back, creation before release; the
#     workload's creations in its order (BTF, map, program, link, per round), the first
#     round released before the second starts, and no creation by it of unknown ids;
#   - `bpfrec report`: nothing lost, the workload's row (2 of each kind), every object
#     of the workload counted in the lifetimes, none of them alive at the end;
#   - `perf script --show-bpf-events` (perf with the perf tools follow-up): one creation
#     and one release line per map, link and BTF object, describing it as the workload
#     read it back (map type and name, link type and program, BTF size);
#   - one tenant (`record --exe` of the workload while stat-prog loads beside it):
#     `bpfrec script` shows the workload's creations, in its order and by its pid, then
#     one release of each, and nothing else (none of stat-prog's); the recorder left
#     the other objects' records out;
#   - a program's metadata and instructions (meta-load, `record --keep-insns`): its load
#     and unload, its maps; its PROG_LOAD's JSON "metadata" is exactly meta.bpf.c's two
#     bpf_metadata_* variables and "maps" its two maps; `script --dump ID` starts at
#     index 0, refers to both maps by id and ends with exit in the last of its
#     xlated / 8 slots;
#   - `bpfrec stat -b`, both ways: the target's 1000 runs, its BTF name, a cost per run > 0;
#   - `bpfrec stat -b --hist -o FILE` then `bpfrec report -i FILE`: the two-mode target's
#     1000 runs, its histogram read back with the target's id and name, bars that count
#     1000 runs, p50 <= p90 <= p99 <= max, and p99 >= 10 x p50 (every tenth run does
#     100 times the work);
#   - `bpfrec stat --bpf-counters`: two sessions at once hold one perf event per CPU,
#     the shell loop's session counts at most one CPU, the -a session all of them;
#   - the profile: stat-prog ran its program 20000 times, the file has its load and its
#     unload, and `bpfrec report --sort dso,bpf` (run after the unload) gives it by name
#     and id more than half of the samples in BPF code;
#   - off CPU: `bpfrec report --off-cpu --folded` has the sleeper's stacks through main
#     into sleep_in_known_place, its ten sleeps of 50 ms = 500 ms within 5 % (never
#     more than the sleeper's own clock says they took: a busy host delays the guest;
#     and at least 95 % of 500 ms: the host can also delay the switch after a sleep's
#     timer is armed, which the interval does not count).
#   usage: scripts/check-demo.sh [--base NAME]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

args=()
case "${1:-}" in
'') ;;
--base) args=(--base "${2:?--base needs a name}") ;;
*) echo "usage: $0 [--base NAME]" >&2; exit 2 ;;
esac

out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$TOP/scripts/run-demo.sh" "${args[@]}" --out "$out" && rc=0 || rc=$?

# The checks run whatever the demo's status, to say what went wrong.
echo "==== checks of the demo's output"
awk -f "$TOP/scripts/check-demo.awk" "$out" || rc=1
[ "$rc" = 0 ] || die "the demo (make run) failed; its output and the checks are above"
