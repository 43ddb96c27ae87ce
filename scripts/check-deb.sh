#!/bin/bash
# The Debian package, as a user builds it: `dpkg-buildpackage -b -us -uc` in a
# clean clone of HEAD builds a .deb (and leaves the clone clean); the .deb,
# unpacked into a temporary root with dpkg -x, holds bpfrec, which runs and
# names the commit it was built from, its man pages, of which bpfrec-record(1)
# documents --off-cpu, and its bash completion.
#   usage: scripts/check-deb.sh [--keep DIR]   (--keep: leave the .deb in DIR)
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
keep=
[ "${1:-}" = --keep ] && keep=${2:?--keep DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok    $1"; }
bad() { fail=$((fail + 1)); echo "FAIL  $1${2:+: $2}"; }

git clone -q "$TOP" "$tmp/src" || exit 1
want=$("$tmp/src/tools/bpfrec/version.sh" "$tmp/src")
if (cd "$tmp/src" && dpkg-buildpackage -b -us -uc) >"$tmp/build.log" 2>&1; then
	ok "dpkg-buildpackage -b -us -uc in a clean clone"
else
	tail -n 30 "$tmp/build.log"
	bad "dpkg-buildpackage -b -us -uc in a clean clone" "the build failed"
	echo "package: $pass passed, $fail failed"
	exit 1
fi
dirt=$(git -C "$tmp/src" status --porcelain)
[ -z "$dirt" ] && ok "the build leaves the clone clean" ||
	bad "the build leaves the clone clean" "$(echo "$dirt" | head -n 5 | tr '\n' ' ')"

deb=$(ls "$tmp"/bpfrec_*.deb)
dpkg -x "$deb" "$tmp/root"
got=$("$tmp/root/usr/bin/bpfrec" --version 2>&1)
[ "$got" = "bpfrec $want" ] && ok "bpfrec --version from the .deb: $got" ||
	bad "bpfrec --version from the .deb" "said '$got', want 'bpfrec $want'"

# a man page for each of the tree's
for scd in "$tmp"/src/tools/bpfrec/Documentation/*.1.scd; do
	name=$(basename "$scd" .scd)
	page=$tmp/root/usr/share/man/man1/$name.gz
	[ -f "$page" ] && ok "the .deb has $name" || bad "the .deb has $name" "no $page"
done
if MANWIDTH=80 man -l "$tmp/root/usr/share/man/man1/bpfrec-record.1.gz" 2>/dev/null |
	grep -qE '^ +--off-cpu$'; then
	ok "man -l bpfrec-record.1 documents --off-cpu"
else
	bad "man -l bpfrec-record.1 documents --off-cpu"
fi
comp=$tmp/root/usr/share/bash-completion/completions/bpfrec
if [ -f "$comp" ] &&
	[ "$(bash -c '. "$1"; complete -p bpfrec' _ "$comp" 2>&1)" = "complete -F _bpfrec bpfrec" ]; then
	ok "the .deb has the bash completion of bpfrec"
else
	bad "the .deb has the bash completion of bpfrec" "$comp missing or not a completion"
fi
deps=$(dpkg-deb -f "$deb" Depends)
[[ $deps == *libbpf1* ]] && ok "the .deb depends on libbpf1 (shlibs)" ||
	bad "the .deb depends on libbpf1 (shlibs)" "Depends: $deps"

[ -n "$keep" ] && cp "$deb" "$keep/" && echo "package: $(basename "$deb") in $keep"
echo "package: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
