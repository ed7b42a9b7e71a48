#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the assembled tree out-of-tree with ccache: tooling/build.sh [target...]
# One build at a time: a second caller waits for the first.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KBUILD=${KBUILD:-$OUT/build}
FRAGMENTS=${FRAGMENTS:-$TOP/tooling/kconfig/pghot.config}
mkdir -p "$KBUILD" "$OUT/ccache"
exec 9> "$BUILD_LOCK"
flock 9

export CCACHE_DIR=${CCACHE_DIR:-$OUT/ccache}
export CCACHE_BASEDIR=$OUT
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 1970'
export KBUILD_BUILD_USER=pghot KBUILD_BUILD_HOST=pghot
ccache -M 5G >/dev/null

kmake() { make -s -C "$LINUX" O="$KBUILD" CC="ccache gcc" HOSTCC="ccache gcc" \
	-j"$(nproc)" "$@"; }

# Regenerate .config when a fragment or the base changed.
stamp=$(cat $FRAGMENTS "$LINUX/.pghot-base" | sha256sum | cut -c1-16)
if [ "$(cat "$KBUILD/.pghot-config-stamp" 2>/dev/null)" != "$stamp" ]; then
	kmake x86_64_defconfig
	"$LINUX/scripts/kconfig/merge_config.sh" -m -O "$KBUILD" "$KBUILD/.config" \
		$FRAGMENTS >/dev/null
	kmake olddefconfig
	# Every option the fragments ask for must have taken.
	bad=0
	for frag in $FRAGMENTS; do
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=n) opt=${line%%=*}
				grep -q "^$opt=[ym]" "$KBUILD/.config" &&
					{ log "$opt is set though $(basename "$frag") disables it"; bad=1; } ;;
			CONFIG_*=*) grep -qxF "$line" "$KBUILD/.config" ||
					{ log "$line from $(basename "$frag") did not take"; bad=1; } ;;
			esac
		done < "$frag"
	done
	[ $bad = 0 ] || die "config fragments do not apply cleanly (see above)"
	echo "$stamp" > "$KBUILD/.pghot-config-stamp"
fi
kmake "${@:-bzImage}"
