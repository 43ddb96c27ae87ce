#!/bin/bash
# `make run`: boot the patched kernel and record a sample BPF workload with bpfrec, then
# print what was recorded: the timeline (bpfrec script) and the summary (bpfrec report).
#   usage: scripts/run-demo.sh [--debug]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

stage "building the recorder and the sample workload" >&2
logged "$CACHE/bpfrec-build.log" make -C "$TOP/tools/bpfrec" bpfrec guest-tests

demo=$(mktemp)
trap 'rm -f "$demo"' EXIT
cat >"$demo" <<'SH'
#!/bin/sh
# The sample workload loads BTF, creates a map, loads a program using it, attaches it
# through a link, then frees everything; bpfrec records the whole lifecycle.
cd /tmp
echo "==== bpfrec record -e bpf-events -o demo.data -- workload -n 2"
bpfrec record -e bpf-events -o demo.data -- /opt/bpfrec/tests/guest/workload -n 2 || exit
echo "==== bpfrec script -i demo.data"
bpfrec script -i demo.data || exit
echo "==== bpfrec report -i demo.data"
bpfrec report -i demo.data
SH
chmod +x "$demo"
"$TOP/scripts/vm.sh" "$@" \
	--add "$TOP/tools/bpfrec/bpfrec:/opt/bpfrec/bin" --add "$demo:/opt/bpfrec/bin" \
	--add "$TOP/tools/bpfrec/.output/guest:/opt/bpfrec/tests" \
	-- sh "/opt/bpfrec/bin/$(basename "$demo")" |
	sed -n '/^bpfrec-guest:/,/^BPFREC-EXIT-STATUS/p'
