# SPDX-License-Identifier: GPL-2.0
# Shared settings for the pghot tooling; sourced, not run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${PGHOT_OUT:-$TOP/out}
KSRC_PKG=linux-source-7.3
KSRC_TARBALL=/usr/src/$KSRC_PKG.tar.xz
# Where new kernel files of the series live in this repository.
OVERLAY_DIRS="mm include arch Documentation tools"
PATCHES=$TOP/patches
LINUX=$OUT/linux		# the assembled tree that gets built
STAGE=$OUT/stage		# the last assembled result, for edit detection
# One kernel build at a time on this machine, whichever checkout runs it.
BUILD_LOCK=${PGHOT_BUILD_LOCK:-${TMPDIR:-/tmp}/pghot-build.lock}

die() { echo "pghot: $*" >&2; exit 1; }
log() { echo "pghot: $*" >&2; }

base_version() {
	dpkg-query -W -f='${Version}' "$KSRC_PKG" 2>/dev/null ||
		die "$KSRC_PKG is not installed; run 'make setup'"
}

# Files this repository adds to the tree, relative to the tree root.
overlay_files() {
	(cd "$TOP" && for d in $OVERLAY_DIRS; do
		if [ -d "$d" ]; then find "$d" -type f ! -name "*.o" ! -name ".*"; fi
	done) | LC_ALL=C sort
}

# Patches in application order.
patch_list() {
	[ -f "$PATCHES/series" ] || return 0
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PATCHES/series"
}

# Upstream files a patch touches.
patch_files() {
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1"
}

# A copy of the base tree at $1 as a git repository with one commit, for
# make series and make series-check. Commits are made as the series'
# author at a fixed date, so the series is reproducible.
export GIT_AUTHOR_NAME="pghot developers" GIT_AUTHOR_EMAIL=pghot@localhost
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE="2026-11-30T00:00:00Z" GIT_COMMITTER_DATE="2026-11-30T00:00:00Z"
base_tree_git() {
	local dir=$1 base
	base=$OUT/base/$(cat "$LINUX/.pghot-base")
	[ -d "$base" ] || die "no base tree at $base; run 'make tree'"
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -a "$base/." "$dir/"
	git -C "$dir" -c core.looseCompression=0 -c gc.auto=0 init -q
	git -C "$dir" -c core.looseCompression=0 -c gc.auto=0 add -A -f
	git -C "$dir" -c core.looseCompression=0 -c gc.auto=0 commit -q \
		-m "base: $KSRC_PKG $(cat "$LINUX/.pghot-base")"
}

SKIPS_ALLOW=$TOP/tooling/skips.allow

# Does tooling/skips.allow let test $2 skip with message $3 in boot $1?
skip_allowed() {
	local boot=$1 id=$2 msg=$3 line boots test re

	[ -f "$SKIPS_ALLOW" ] || return 1
	while IFS= read -r line; do
		case "$line" in ''|'#'*) continue ;; esac
		boots=${line%% | *}; line=${line#* | }
		test=${line%% | *}; line=${line#* | }
		re=${line%% | *}
		[ "$test" = "$id" ] || continue
		case " $boots " in *" $boot "*|' * ') ;; *) continue ;; esac
		printf '%s\n' "$msg" | grep -qE -- "$re" && return 0
	done < "$SKIPS_ALLOW"
	return 1
}

# The upstream tests make check and make upstream-compare run on the
# patched (and base) kernel, and the kernel arguments of their boot: huge
# pages on nodes 0 and 1 so that mm/migration's hugetlb cases run.
UPSTREAM_TESTS='upstream/migration upstream/mem-on-off-test.sh'
UPSTREAM_APPEND='hugepages=0:4,1:4'
# 1 GiB on each of nodes 0 to 2 (plus node 2's DIMM): mem-on-off-test.sh
# walks every memory block several times, and with the default shape's
# 45 blocks it took 239 s of make check on the debug kernel.
UPSTREAM_NODE_MB=1024
