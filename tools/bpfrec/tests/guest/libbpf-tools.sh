# SPDX-License-Identifier: GPL-2.0
#
# Debian's libbpf-tools as users run them, on the series' kernel: sourced
# by run.sh (its result/skip, $tmp, $BPFREC, $here, $lacks).  execsnoop and
# opensnoop (copied from the host with their libraries by guest.mk) run
# while `record -e bpf-events` records; every program, map, link and BTF
# object they hold once attached (their fds' fdinfo, which is what
# bpftool's pids column shows) must have its creation record in the file,
# made by the tool's own pid and executable.  The tools hold their links
# when they have attached, so the list is taken after that, not at a time
# guessed.  bpftrace, which the host test runs beside them, is not in the
# guest: its LLVM libraries would add about 150 MB to every initramfs.

lt=$tmp/libbpf-tools
mkdir "$lt"
tools=
for t in execsnoop opensnoop; do
	[ -x "$here/libbpf-tools/$t" ] && tools="$tools $here/libbpf-tools/$t"
done

# The workload, TOOL...: the tools started, their held objects in $LT/held
# ("PID KIND ID") once each holds a link, their paths in $LT/exe
cat >"$lt/work.sh" <<'SH'
LT=$1
shift
: >"$LT/exe"
for t in "$@"; do
	"$t" >/dev/null 2>"$LT/$(basename "$t").err" &
	echo "$! $t" >>"$LT/exe"
done
i=0
while [ $i -lt 3000 ]; do
	n=0
	while read -r p t; do
		cat /proc/"$p"/fdinfo/* 2>/dev/null | grep -q '^link_id:' && n=$((n + 1))
	done <"$LT/exe"
	[ $n -eq $# ] && break
	i=$((i + 1))
	sleep 0.02
done
echo "$n" >"$LT/ready"
while read -r p t; do
	for f in /proc/"$p"/fdinfo/*; do
		sed -n "s/^\(prog_id\|map_id\|link_id\|btf_id\):[[:space:]]*/$p \1 /p" "$f"
	done
done <"$LT/exe" >"$LT/held"
while read -r p t; do kill "$p"; done <"$LT/exe"
wait
SH

# lt_check: one line per object held without its creation by its tool
lt_check() {
	while read -r p kind id; do
		case $kind in
		prog_id) ev=PROG_LOAD ;;
		map_id) ev=MAP_CREATE ;;
		link_id) ev=LINK_ATTACH ;;
		btf_id) ev=BTF_LOAD ;;
		esac
		exe=$(awk -v p="$p" '$1 == p { print $2 }' "$lt/exe")
		line=$(grep -F "\"event\":\"$ev\",\"id\":$id," "$lt/rec.json" | head -n 1)
		if [ -z "$line" ]; then
			echo "$kind $id of $exe: no $ev"
			continue
		fi
		rpid=$(echo "$line" | sed -n 's/.*"pid":\([0-9]*\),.*/\1/p')
		rexe=$(echo "$line" | sed -n 's/.*"exe":"\([^"]*\)".*/\1/p')
		[ "$rpid" = "$p" ] && [ "$rexe" = "$exe" ] ||
			echo "$kind $id: $ev by pid $rpid exe '$rexe', held by $p ($exe)"
	done <"$lt/held"
	# what each tool held, by kind: a program, a map, a link and BTF at least
	while read -r p t; do
		for kind in prog_id map_id link_id btf_id; do
			grep -q "^$p $kind " "$lt/held" || echo "$t held no $kind"
		done
	done <"$lt/exe"
}

if [ "$lacks" = 1 ]; then
	skip "libbpf-tools: every object they hold has its creation and creator" \
		"kernel $(uname -r) lacks bpf_obj_event (the host test covers the capture)"
elif [ -z "$tools" ]; then
	skip "libbpf-tools: every object they hold has its creation and creator" \
		"execsnoop and opensnoop were not found on the host that built the guest"
else
	"$BPFREC" record -e bpf-events -o "$lt/rec.data" -- sh "$lt/work.sh" "$lt" $tools \
		>"$lt/rec.out" 2>"$lt/rec.err"
	rc=$?
	"$BPFREC" script -i "$lt/rec.data" --json >"$lt/rec.json" 2>"$lt/script.err"
	lt_check >"$lt/check"
	set -- $tools
	result "libbpf-tools: every object $# tools hold ($(wc -l <"$lt/held") in all) has its creation and creator" \
		"$([ $rc -eq 0 ] && [ "$(cat "$lt/ready")" = $# ] && [ -s "$lt/held" ] && [ ! -s "$lt/check" ] ||
		   echo "exit $rc, $(cat "$lt/ready") of $# ready: $(head -c 400 "$lt/check") $(tail -n 2 "$lt/rec.err")")"
fi
