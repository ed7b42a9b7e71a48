#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series-check: apply out/series (make series) with git am on a clean
# copy of the base tree, one patch at a time. Before each patch is applied
# checkpatch --strict must have nothing to say about it; after it the tree
# must build (incrementally, the plain pghot config merged again so options
# appear as their patch adds them). The base tree itself is built first;
# its kernel is kept as out/series-check/base-bzImage for
# tooling/upstream-compare.sh, and the patched one (the last step) as
# out/series-check/patched-bzImage. Prints how long each step took.
#
# Then, in the same build directory (kbuild's per-option dependencies and
# ccache keep each an incremental build):
#  - W=1 and sparse on the upstream files the series changes
#    (the .c files of patches/), on the base tree and on the series: no
#    warning the base tree does not have (line numbers aside);
#  - the configuration matrix: the series builds without a warning with
#    each of MATRIX merged onto the plain config: vmlinux, or with ":dirs"
#    the directories that hold the series' kernel files (mm/, kernel/sched/,
#    arch/x86/events/, ...). Default: PGHOT_PRECISE=y PGHOT_IBS=n PGHOT=n
#    and CPU_SUP_AMD=n with what it needs, by directories (CPU_SUP_AMD is
#    tested in asm/processor.h, so a full build with it off recompiles the
#    whole kernel from nothing).
#    SERIES_MATRIX=0 leaves the matrix out.
# SERIES_BUILD=0 checks only that every patch is checkpatch-clean and
# applies with git am, without any build (make check does this: its time
# budget has no room for a build per patch; make series-check builds).
# SERIES_BUILD=w1 adds the W=1/sparse comparison alone, on trees that are
# configured and prepared but not built (make check's CHECK_SERIES_BUILD=w1).
# Each prints a "result: PASS|FAIL w1/... or matrix/..." line, which
# tooling/check.sh counts.
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

# The plain pghot config on what is checked out.
configure() {
	kmake x86_64_defconfig
	"$C/linux/scripts/kconfig/merge_config.sh" -m -O "$C/build" \
		"$C/build/.config" "$TOP/tooling/kconfig/pghot.config" >/dev/null 2>&1
	kmake olddefconfig
}

# Configure and build what is checked out, $1 (default vmlinux: a patch
# builds when vmlinux links; the base and the last step make the bzImage
# a VM boots); the log goes to $C/build.log.
build_step() {
	configure
	kmake "${1:-vmlinux}" > "$C/build.log" 2>&1
}

# W=1 + sparse warnings of the upstream files the series changes, as
# "file: warning" lines without line numbers, into $1.
sparse_cf=-D__typeof_unqual__=__typeof__	# see tooling/static-checks.sh
up_objs=$(for p in $(patch_list); do patch_files "$PATCHES/$p"; done |
	grep -E '^(arch|block|drivers|fs|kernel|lib|mm|net|security)/.*\.c$' |
	sed 's/\.c$/.o/' | sort -u)
w1_warnings() {
	local rc=0

	kmake W=1 C=2 CF="$sparse_cf" $up_objs > "$1.log" 2>&1 || rc=$?
	{ grep -E 'warning:|error:' "$1.log" || true; } |
		sed -E 's/^([^:]+):[0-9]+:([0-9]+:)? /\1: /' | LC_ALL=C sort > "$1"
	return $rc
}

# No new W=1 or sparse warning in the upstream files: the series' warnings
# against $C/w1-base.
w1_compare() {
	local t0 new

	t0=$(date +%s)
	if ! w1_warnings "$C/w1-series"; then
		tail -30 "$C/w1-series.log"
		echo "result: FAIL w1/upstream-files # W=1 build failed ($C/w1-series.log)"
		fail=1
	else
		new=$(LC_ALL=C comm -13 "$C/w1-base" "$C/w1-series")
		if [ -n "$new" ]; then
			echo "$new"
			echo "result: FAIL w1/upstream-files # $(echo "$new" | wc -l) new W=1/sparse warnings"
			fail=1
		else
			echo "result: PASS w1/upstream-files # $(echo $up_objs)"
		fi
	fi
	log "w1: series, the same objects: $(wc -l < "$C/w1-series") warnings, $(LC_ALL=C comm -13 "$C/w1-base" "$C/w1-series" | wc -l) new ($(( $(date +%s) - t0 )) s)"
}

BUILD=${SERIES_BUILD:-1}
if [ "$BUILD" = 1 ]; then
t0=$(date +%s)
build_step bzImage || { tail -30 "$C/build.log"; die "the base tree does not build"; }
cp "$C/build/arch/x86/boot/bzImage" "$C/base-bzImage"
log "base: builds ($(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
w1_warnings "$C/w1-base" || { tail -30 "$C/w1-base.log"; die "W=1 build of the base tree failed"; }
log "w1: base tree, $(echo $up_objs | wc -w) upstream objects: $(wc -l < "$C/w1-base") warnings ($(( $(date +%s) - t0 )) s)"
elif [ "$BUILD" = w1 ]; then
# Only the W=1/sparse comparison: the objects and what they need
# (prepare), no kernel.
t0=$(date +%s)
configure
w1_warnings "$C/w1-base" || { tail -30 "$C/w1-base.log"; die "W=1 build of the base tree failed"; }
log "w1: base tree, $(echo $up_objs | wc -w) upstream objects, configured and prepared: $(wc -l < "$C/w1-base") warnings ($(( $(date +%s) - t0 )) s)"
fi

fail=0
last=${patches[${#patches[@]} - 1]}
for p in "${patches[@]}"; do
	name=$(basename "$p")
	[ "${name#0000-}" = "$name" ] || continue
	target=vmlinux
	[ "$p" != "$last" ] || target=bzImage
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
	if [ "$BUILD" != 1 ]; then
		log "$name: checkpatch clean, applies (not built: SERIES_BUILD=$BUILD)"
		continue
	fi
	if ! build_step $target; then
		tail -30 "$C/build.log"
		die "$name: the tree does not build"
	fi
	if grep -E 'warning:|error:' "$C/build.log"; then
		log "$name: the build warns"
		fail=1
	fi
	log "$name: checkpatch clean, builds ($(( $(date +%s) - t0 )) s)"
done
if [ "$BUILD" != 1 ]; then
	[ "$BUILD" != w1 ] || w1_compare
	log "series-check: ${#patches[@]} files (cover letter included), no builds${BUILD/#w1/ but W=1/sparse}, in $(( $(date +%s) - start )) s"
	[ $fail = 0 ] || die "series-check failed"
	exit 0
fi
cp "$C/build/arch/x86/boot/bzImage" "$C/patched-bzImage"

w1_compare

# The configuration matrix, each variant from the plain config: an option,
# then with "+" what it needs (CPU_SUP_AMD can only be turned off under
# EXPERT and PROCESSOR_SELECT, and Hygon support selects it).
MATRIX=${MATRIX:-PGHOT_PRECISE=y PGHOT_IBS=n PGHOT=n CPU_SUP_AMD=n+EXPERT=y+PROCESSOR_SELECT=y+CPU_SUP_HYGON=n:dirs}
[ "${SERIES_MATRIX:-1}" = 1 ] || MATRIX=
series_dirs=$( (for p in $(patch_list); do patch_files "$PATCHES/$p"; done; overlay_files) |
	grep -E '^(arch|block|drivers|fs|kernel|lib|mm|net|security)/.*\.c$' |
	xargs -n1 dirname | sort -u | sed 's|$|/|')
for v in $MATRIX; do
	t0=$(date +%s)
	targets=vmlinux
	case $v in *:dirs) v=${v%:dirs}; targets=$series_dirs ;; esac
	opts=${v//+/ }
	v=${opts%% *}
	printf 'CONFIG_%s\n' $opts > "$C/matrix.config"
	kmake x86_64_defconfig
	"$C/linux/scripts/kconfig/merge_config.sh" -m -O "$C/build" "$C/build/.config" \
		"$TOP/tooling/kconfig/pghot.config" "$C/matrix.config" >/dev/null 2>&1
	kmake olddefconfig
	case $v in
	*=n) took=$(grep -q "^CONFIG_${v%=n}=[ym]" "$C/build/.config" || echo 1) ;;
	*) took=$(grep -qx "CONFIG_$v" "$C/build/.config" && echo 1) ;;
	esac
	if [ -z "$took" ]; then
		echo "result: FAIL matrix/$v # CONFIG_$v does not take"
		fail=1
		continue
	fi
	if kmake $targets > "$C/matrix-$v.log" 2>&1 &&
	   ! grep -qE 'warning:|error:' "$C/matrix-$v.log"; then
		echo "result: PASS matrix/$v # $(echo $targets), $(( $(date +%s) - t0 )) s"
	else
		grep -E 'warning:|error:' "$C/matrix-$v.log" | head -10
		tail -5 "$C/matrix-$v.log"
		echo "result: FAIL matrix/$v # does not build cleanly ($C/matrix-$v.log)"
		fail=1
	fi
	log "matrix: $v ($(( $(date +%s) - t0 )) s)"
done
# Leave the build directory configured as the series is.
if [ -n "$MATRIX" ]; then
	kmake x86_64_defconfig
	"$C/linux/scripts/kconfig/merge_config.sh" -m -O "$C/build" \
		"$C/build/.config" "$TOP/tooling/kconfig/pghot.config" >/dev/null 2>&1
	kmake olddefconfig
fi

log "series-check: ${#patches[@]} files (cover letter included) in $(( $(date +%s) - start )) s"
[ $fail = 0 ] || die "series-check failed"
