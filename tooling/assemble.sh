#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Assemble out/linux = Debian linux-source-7.3 + this repository's new
# files + patches/series. Deterministic; only files whose content changes
# are rewritten, so an incremental build stays incremental. Refuses to
# overwrite edits made in out/linux (save them with 'make refresh' or drop
# them with FORCE=1).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ver=$(base_version)
base=$OUT/base/$ver
if [ ! -f "$base/.complete" ]; then
	log "extracting $KSRC_PKG $ver"
	rm -rf "$base" && mkdir -p "$base"
	tar -C "$base" --strip-components=1 -xf "$KSRC_TARBALL"
	touch "$base/.complete"
fi
grep -q '^PATCHLEVEL = 3$' "$base/Makefile" ||
	die "$KSRC_PKG $ver is not a 7.3 tree"

# 1. stage: hard links to base, overlay copied in, patches applied.
rm -rf "$STAGE.new"
cp -al "$base" "$STAGE.new"
rm -f "$STAGE.new/.complete"
manifest=$(mktemp)
trap 'rm -f "$manifest"' EXIT
overlay_files > "$manifest.overlay"
while read -r f; do
	[ -e "$base/$f" ] && die "$f exists upstream: change it with a patch, not an overlay file"
	mkdir -p "$STAGE.new/$(dirname "$f")"
	cp "$TOP/$f" "$STAGE.new/$f"
done < "$manifest.overlay"
cat "$manifest.overlay" > "$manifest"
rm -f "$manifest.overlay"

for p in $(patch_list); do
	[ -f "$PATCHES/$p" ] || die "patches/series names $p, which does not exist"
	for f in $(patch_files "$PATCHES/$p"); do
		echo "$f" >> "$manifest"
	done
	# patch(1) writes a new file and renames it, so base's hard links stay
	# intact. No fuzz: a hunk whose context changed must be looked at.
	if ! out=$(patch -d "$STAGE.new" -p1 -F0 -f -N --no-backup-if-mismatch \
			-r - < "$PATCHES/$p" 2>&1); then
		echo "$out" | sed "s|^|pghot: $p: |" >&2
		die "patch $p no longer applies to $KSRC_PKG $ver (failed hunks above)"
	fi
done
LC_ALL=C sort -u -o "$manifest" "$manifest"

# 2. sync stage -> out/linux, touching only what changed.
if [ ! -f "$LINUX/.pghot-complete" ] || [ "$(cat "$LINUX/.pghot-base")" != "$ver" ]; then
	rm -rf "$LINUX"
	cp -a "$STAGE.new" "$LINUX.tmp"	# real copies: edits in out/linux never reach base
	mv "$LINUX.tmp" "$LINUX"
	echo "$ver" > "$LINUX/.pghot-base"
	touch "$LINUX/.pghot-complete"
else
	if [ -z "${FORCE:-}" ] && [ -s "$LINUX/.pghot-sums" ] &&
	   ! (cd "$LINUX" && sha256sum -c --quiet .pghot-sums >/dev/null 2>&1); then
		(cd "$LINUX" && sha256sum -c --quiet .pghot-sums 2>/dev/null) | sed 's/^/pghot:   /' >&2 || true
		die "out/linux has edits not in the repository; 'make refresh' saves them, FORCE=1 drops them"
	fi
	for f in $(cat "$LINUX/.pghot-manifest" "$manifest" | LC_ALL=C sort -u); do
		if [ -e "$STAGE.new/$f" ]; then
			cmp -s "$STAGE.new/$f" "$LINUX/$f" && continue
			mkdir -p "$LINUX/$(dirname "$f")"
			cp "$STAGE.new/$f" "$LINUX/$f"
		else
			rm -f "$LINUX/$f"
		fi
	done
fi
cp "$manifest" "$LINUX/.pghot-manifest"
(cd "$LINUX" && xargs -a .pghot-manifest -r sha256sum > .pghot-sums)
rm -rf "$STAGE" && mv "$STAGE.new" "$STAGE"
log "tree assembled: $KSRC_PKG $ver + $(wc -l < "$LINUX/.pghot-manifest") files"
