#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Put the TCG plugin header of the installed QEMU into out/emu/: taken from
# the Debian source package of exactly the installed qemu-system-x86
# version (never committed). Run by make setup (as root: it adds a deb-src
# entry for bookworm-backports and runs apt-get source). Idempotent.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

EMU=$OUT/emu
hdr=$EMU/qemu-plugin.h
QEMU=${QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null || die "$QEMU is missing; run 'make setup'"
"$QEMU" -help | grep -q -- '^-plugin' ||
	die "$QEMU was built without TCG plugin support (no -plugin option); the emulated CXL box (tooling/emu) needs it"
ver=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed; run 'make setup'"
if [ -f "$hdr" ] && [ "$(cat "$hdr.version" 2>/dev/null)" = "$ver" ]; then
	exit 0
fi
src=$(dpkg-query -W -f='${source:Package}' qemu-system-x86)
[ "$(id -u)" = 0 ] ||
	die "the QEMU plugin header ($src $ver) is missing; run 'make setup' as root"

list=/etc/apt/sources.list.d/pghot-src.sources
if [ ! -f "$list" ]; then
	cat > "$list" <<'EOT'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
	apt-get update -q
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The orig tarball carries the header; the Debian tarball (when the
# mirror has it) may patch it. apt-get fails if one of the files is
# missing, so what was fetched is checked below.
(cd "$tmp" && apt-get source -q --download-only "$src=$ver" >&2) ||
	log "apt-get source $src=$ver failed for some files; using what it fetched"
upstream=${ver#*:}; upstream=${upstream%-*}
orig=$(ls "$tmp/${src}_${upstream}".orig.tar.* 2>/dev/null | head -1)
[ -n "$orig" ] || die "could not fetch the source of $src $ver (deb-src bookworm-backports)"
tar -xf "$orig" -C "$tmp" --wildcards '*/include/qemu/qemu-plugin.h'
h=$(ls "$tmp"/*/include/qemu/qemu-plugin.h | head -1)
deb=$(ls "$tmp/${src}_${ver#*:}".debian.tar.* 2>/dev/null | head -1 || true)
if [ -n "$deb" ]; then
	mkdir "$tmp/deb"
	tar -xf "$deb" -C "$tmp/deb"
	for p in $(sed -e 's/#.*//' "$tmp/deb/debian/patches/series" 2>/dev/null); do
		if grep -q '^+++ .*include/qemu/qemu-plugin.h' "$tmp/deb/debian/patches/$p"; then
			(cd "$(dirname "$h")/../.." && patch -p1 < "$tmp/deb/debian/patches/$p" >&2)
		fi
	done
fi
grep -q '^#define QEMU_PLUGIN_VERSION' "$h" || die "$h: not a QEMU plugin header"
mkdir -p "$EMU"
cp "$h" "$hdr"
echo "$ver" > "$hdr.version"
log "QEMU plugin header from $src $ver ($(basename "$orig")${deb:+ + $(basename "$deb")})"
