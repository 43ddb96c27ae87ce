#!/bin/bash
# Install, with apt-get, the Debian packages the project needs that are missing.
# Idempotent: a second run with everything present does nothing and says so.
set -euo pipefail

PKGS=(
	build-essential bc bison flex cpio rsync kmod libssl-dev libelf-dev zlib1g-dev
	dwarves ccache python3 time
	clang llvm bpftool libbpf-dev libtraceevent-dev libcap-dev
	busybox-static qemu-system-x86
	linux-source-6.1 linux-source-6.12 linux-perf
	libzstd-dev libdw-dev libxml2-utils libbpf-tools bpftrace
	scdoc debhelper man-db
	libncurses-dev tmux libmicrohttpd-dev libprotobuf-c-dev protobuf-c-compiler
	prometheus golang-go
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	[ "${1:-}" = "-q" ] || echo "deps: all ${#PKGS[@]} packages present"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}; run 'sudo scripts/deps.sh'" >&2
	exit 1
fi

echo "deps: installing ${missing[*]}"
log=${DEPS_LOG:-/tmp/bpfrec-deps.log}
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update && apt-get install -y --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	echo "deps: apt-get failed; full log in $log" >&2
	exit 1
fi
echo "deps: done"
