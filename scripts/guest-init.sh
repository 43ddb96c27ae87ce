#!/bin/sh
# /init of the bpfrec guest: mount what BPF tools and tests need, run /run.sh, print its
# exit status on the console for the host, and end QEMU (-no-reboot turns reboot into exit).
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /tmp /sys/fs/bpf
# devtmpfs has no /dev/std* links (udev makes them); the kselftest runner writes the
# tests' output to /dev/stdout, which would otherwise become a plain file.
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mount -t tmpfs tmp /tmp
mount -t bpf bpf /sys/fs/bpf
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
mount -t cgroup2 cgroup2 /sys/fs/cgroup
ip link set lo up 2>/dev/null
hostname bpfrec-guest
export PATH=/opt/bpfrec/bin:/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
cd /root

echo "bpfrec-guest: $(uname -r), $(nproc) CPUs, running /run.sh"
/bin/sh /run.sh
rc=$?
echo "BPFREC-EXIT-STATUS=$rc"
sync
reboot -f
