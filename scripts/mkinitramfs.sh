#!/bin/bash
# Assemble the guest initramfs: busybox, /init, the command to run, and extra files with the
# shared libraries they need (found with ldd).
#   usage: scripts/mkinitramfs.sh OUT.cpio.gz RUN_SCRIPT [SRC:GUEST_DIR]...
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || { echo "usage: $0 OUT.cpio.gz RUN_SCRIPT [SRC:GUEST_DIR]..." >&2; exit 2; }
out=$1
run=$2
shift 2

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,etc,opt/bpfrec/bin}
cp /bin/busybox "$root/bin/busybox"
for app in $("$root/bin/busybox" --list-full); do
	[ -e "$root/$app" ] || ln -s /bin/busybox "$root/$app"
done
# The kselftest runner calls 'timeout --foreground', which busybox lacks: ship coreutils'.
rm -f "$root/usr/bin/timeout"
cp /usr/bin/timeout "$root/usr/bin/timeout"
install -m 755 "$TOP/scripts/guest-init.sh" "$root/init"
install -m 755 "$run" "$root/run.sh"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/false" >>"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"

for spec in "$@"; do
	src=${spec%%:*}
	dst=$root/${spec#*:}
	mkdir -p "$dst"
	cp -a "$src" "$dst/"
done

# Copy the loader and libraries of every dynamically linked executable we ship.
find "$root/opt" "$root/usr/bin/timeout" -type f -perm -u+x | while read -r f; do
	libs=$(ldd "$f" 2>/dev/null) || continue
	echo "$libs" | grep -oE '/[^ ]+' | while read -r lib; do
		[ -e "$root$lib" ] || { mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"; }
	done
done

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
