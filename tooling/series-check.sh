#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series-check: apply out/series (make series) with git am on a clean
# copy of the base tree, one patch at a time. Before each patch is applied
# checkpatch --strict must have nothing to say about it; after it the tree
# must build (incrementally, the plain pghot config merged again so options
# appear as their patch adds them). The base tree itself is built first;
# its kernel is kept as out/series-check/base-bzImage for
# tooling/upstream-compare.sh. Prints how long each step took.
#
# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") is not checked: it
# fires on every patch that adds a file without touching MAINTAINERS, and
# the last patch adds the entry that covers them all.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SERIES=$OUT/series
shopt -s nullglob
patches=("$SERIES"/[0-9][0-9][0-9][0-9]-*.patch)
[ ${#patches[@]} -gt 1 ] || die "no series in $SERIES; run 'make series'"
C=$OUT/series-check
start=$(date +%s)

# The tree and the build directory sit side by side as out/linux and
# out/build do, so ccache (base_dir $C) sees the same relative paths.
rm -rf "$C"
base_tree_git "$C/linux"
mkdir -p "$C/build"
git_c() { git -C "$C/linux" -c core.looseCompression=0 -c gc.auto=0 "$@"; }

exec 9> "$BUILD_LOCK"
flock 9
export CCACHE_DIR=${CCACHE_DIR:-$OUT/ccache} CCACHE_BASEDIR=$C
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 1970'
export KBUILD_BUILD_USER=pghot KBUILD_BUILD_HOST=pghot
kmake() { make -s -C "$C/linux" O="$C/build" CC="ccache gcc" HOSTCC="ccache gcc" \
	-j"$(nproc)" "$@"; }

# Configure and build what is checked out; the log goes to $C/build.log.
build_step() {
	kmake x86_64_defconfig
	"$C/linux/scripts/kconfig/merge_config.sh" -m -O "$C/build" \
		"$C/build/.config" "$TOP/tooling/kconfig/pghot.config" >/dev/null 2>&1
	kmake olddefconfig
	kmake bzImage > "$C/build.log" 2>&1
}

t0=$(date +%s)
build_step || { tail -30 "$C/build.log"; die "the base tree does not build"; }
cp "$C/build/arch/x86/boot/bzImage" "$C/base-bzImage"
log "base: builds ($(( $(date +%s) - t0 )) s)"

fail=0
for p in "${patches[@]}"; do
	name=$(basename "$p")
	[ "${name#0000-}" = "$name" ] || continue
	t0=$(date +%s)
	# In a git tree checkpatch also runs scripts/spdxcheck.py, which needs
	# Debian's python3 with python3-ply and python3-git.
	out=$(cd "$C/linux" && PATH=/usr/bin:$PATH scripts/checkpatch.pl \
		--strict --terse --no-summary --show-types \
		--ignore FILE_PATH_CHANGES "$p" 2>&1) || true
	if [ -n "$out" ]; then
		echo "$out"
		log "$name: checkpatch has something to say"
		fail=1
	fi
	git_c am -q "$p" || die "$name does not apply with git am"
	if ! build_step; then
		tail -30 "$C/build.log"
		die "$name: the tree does not build"
	fi
	if grep -E 'warning:|error:' "$C/build.log"; then
		log "$name: the build warns"
		fail=1
	fi
	log "$name: checkpatch clean, builds ($(( $(date +%s) - t0 )) s)"
done
log "series-check: ${#patches[@]} files (cover letter included) in $(( $(date +%s) - start )) s"
[ $fail = 0 ] || die "series-check failed"
