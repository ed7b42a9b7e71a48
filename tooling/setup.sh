#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what building, booting and testing pghot needs on Debian 12.
# Idempotent: a second run only checks.
set -euo pipefail

# The one package taken from trixie-backports: the base kernel source.
KSRC_PKG=linux-source-7.3

want_pkgs=(build-essential bc bison flex libelf-dev libssl-dev ccache cpio kmod
	   rsync python3 python3-ply python3-git git sparse numactl libnuma-dev
	   xz-utils gnuplot-nox libglib2.0-dev
	   qemu-system-x86 "$KSRC_PKG")

need=()
for p in "${want_pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		need+=("$p")
done
# qemu must be the bookworm-backports one: 7.2's MTTCG oopses at boot now and then.
qemu_ver=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || true)
case "$qemu_ver" in
	*bpo12*) ;;
	*) need+=(qemu-system-x86) ;;
esac
# The TCG plugin header of the installed QEMU, from its source package
# (for the emulated CXL box, tooling/emu), once the packages are there.
emu_header() { "$(dirname "$0")/emu/plugin-header.sh"; }
if [ ${#need[@]} -eq 0 ]; then emu_header; exit; fi

if [ "$(id -u)" != 0 ]; then
	echo "setup: missing packages (${need[*]}); run 'make setup' as root" >&2
	exit 1
fi

cat > /etc/apt/sources.list.d/pghot.sources <<'EOT'
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie-backports bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
# Nothing else may come from trixie-backports; qemu and its helpers come
# from bookworm-backports, everything else from bookworm.
cat > /etc/apt/preferences.d/pghot <<'EOT'
Package: *
Pin: release n=trixie-backports
Pin-Priority: -1

Package: linux-source-7.3
Pin: release n=trixie-backports
Pin-Priority: 500

Package: *
Pin: release n=bookworm-backports
Pin-Priority: 100

Package: qemu-* seabios ipxe-qemu
Pin: release n=bookworm-backports
Pin-Priority: 500
EOT
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${want_pkgs[@]}"
emu_header
