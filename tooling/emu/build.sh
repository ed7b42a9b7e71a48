#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the emulated CXL box (tooling/emu/README): the QEMU TCG plugin
# out/emu/pghot-emu-plugin.so and the guest helper out/emu/pghot-emu.
# Fails with a clear message if the installed QEMU cannot load plugins.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

EMU=$OUT/emu
SRC=$TOP/tooling/emu
QEMU=${QEMU:-qemu-system-x86_64}
mkdir -p "$EMU"
"$SRC/plugin-header.sh"	# also checks that QEMU takes -plugin
CFLAGS="-O2 -g -Wall -Wextra -Wno-unused-parameter"
plugin=$EMU/pghot-emu-plugin.so helper=$EMU/pghot-emu
if [ ! -f "$plugin" ] || [ "$SRC/pghot-emu-plugin.c" -nt "$plugin" ] ||
   [ "$EMU/qemu-plugin.h" -nt "$plugin" ]; then
	# shellcheck disable=SC2046
	gcc $CFLAGS -fPIC -shared -I"$EMU" $(pkg-config --cflags glib-2.0) \
		-o "$plugin.tmp" "$SRC/pghot-emu-plugin.c" -lpthread
	# It must load: QEMU checks the plugin API version.
	out=$(echo quit | timeout 30 "$QEMU" -machine none -display none -nodefaults \
		-monitor stdio -plugin "$plugin.tmp" 2>&1) ||
		die "$QEMU cannot load the plugin: $out"
	mv "$plugin.tmp" "$plugin"
	log "built $plugin"
fi
if [ ! -f "$helper" ] || [ "$SRC/pghot-emu.c" -nt "$helper" ]; then
	gcc $CFLAGS -o "$helper" "$SRC/pghot-emu.c" -lnuma
	log "built $helper"
fi
