#!/bin/bash
# Reproduce the QEMU TCG race that scripts/vm.sh tolerates once: the kernel pokes a
# BPF program's fentry site (int3, then the call to a trampoline) while the program runs
# on the other vCPU, and that vCPU later runs a stale translation of the int3: an
# "Oops: int3" at bpf_prog_..._on_switch+0x5 whose code bytes already show the call.
# Here a --bpf-counters leader counts on every context switch and ITERATIONS followers
# attach to it and detach (two pokes each); on this host it took about 450.
#   usage: scripts/tcg-poke-race.sh [--base NAME] [ITERATIONS]   (default 1500)
# Exit 0 when the race was reproduced, 1 when not.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

vmargs=()
n=1500
while [ $# -gt 0 ]; do
	case "$1" in
	--base) vmargs+=(--base "${2:-}"); shift ;;
	[0-9]*) n=$1 ;;
	*) echo "usage: $0 [--base NAME] [ITERATIONS]" >&2; exit 2 ;;
	esac
	shift
done

logged "$CACHE/logs/bpfrec-build.$$.log" make -C "$TOP/tools/bpfrec" bpfrec
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$TOP/tools/bpfrec/bpfrec" "$work/"
cat >"$work/race.sh" <<GUEST
#!/bin/sh
b=/opt/race/bpfrec
reg=/sys/fs/bpf/tcg_poke_race
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
\$b stat --bpf-counters --bpf-registry \$reg -e cpu-clock -a 3600 >/dev/null 2>&1 &
sleep 2
# context switches on both vCPUs: the leader's program runs at each
( while :; do :; done ) &
( while :; do sleep 0.001; done ) &
i=0
while [ \$i -lt $n ]; do
	\$b stat --bpf-counters --bpf-registry \$reg -e cpu-clock -- true >/dev/null ||
		{ echo "follower \$i failed"; exit 1; }
	i=\$((i + 1))
	[ \$((i % 100)) = 0 ] && echo "\$i followers attached and detached"
done
echo "no race in $n followers"
GUEST
chmod +x "$work/race.sh"
log=$CACHE/logs/tcg-poke-race.$$.log
if "$TOP/scripts/vm.sh" "${vmargs[@]}" --quiet --no-retry --timeout 3600 --log "$log" \
	--add "$work/.:/opt/race" -- /opt/race/race.sh 2>/dev/null; then
	echo "tcg-poke-race: not reproduced in $n followers"
	exit 1
fi
if "$TOP/scripts/check-console.sh" --tcg-poke-race "$log"; then
	c=$(grep -c 'followers attached' "$log")
	echo "tcg-poke-race: reproduced within followers $((c * 100 + 1))-$((c * 100 + 100)): $(grep -m 1 'RIP: 0010:bpf_prog' "$log" | sed 's/^\[[^]]*\] //') (console: $log)"
else
	die "the guest failed, but not with the race; console: $log"
fi
