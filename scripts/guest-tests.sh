#!/bin/sh
# Runs inside the guest: the kselftests (all, or the targets given), then the recorder's
# guest tests when they were shipped. The host judges the console output.
#   usage: guest-tests.sh [TARGET]...
# KSFT_OVERRIDE_TIMEOUT, when set, replaces every target's timeout (a long stress run);
# the tests read their own variables (BPF_EVENTS_LINK_ITERS) from the environment.
cd /opt/kselftest || exit 1
if [ $# -gt 0 ]; then
	for t in "$@"; do
		set -- "$@" -c "$t"
		shift
	done
fi
if [ -n "${KSFT_OVERRIDE_TIMEOUT:-}" ]; then
	set -- "$@" -o "$KSFT_OVERRIDE_TIMEOUT"
fi
echo "# at $(cut -d' ' -f1 /proc/uptime) s: kselftests"
./run_kselftest.sh "$@"
/opt/bpfrec/tests/guest/run.sh
exit 0
