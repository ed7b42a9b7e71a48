#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Save edits made in out/linux back into this repository:
#  - new files of the series (listed in out/linux/.pghot-manifest and
#    present in the repository) are copied back;
#  - each patch in patches/series is regenerated from the base tree and
#    out/linux for the upstream files it owns, keeping its header.
# To start changing another upstream file, edit it in out/linux and run
#	tooling/refresh.sh --add <patch-name> <path>
# which adds the file to that patch (creating the patch and appending it to
# patches/series if needed). Nothing is written unless it changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$LINUX/.pghot-complete" ] || die "no assembled tree; run 'make tree'"
base=$OUT/base/$(cat "$LINUX/.pghot-base")

declare -A extra=()
if [ "${1:-}" = --add ]; then
	[ $# -ge 3 ] || die "usage: refresh.sh --add <patch> <path>..."
	p=$2; shift 2
	for f in "$@"; do
		[ -e "$base/$f" ] || die "$f is not an upstream file; new files go into the repository at $f"
		extra[$p]+=" $f"
	done
	if ! patch_list | grep -qxF "$p"; then
		[ -f "$PATCHES/$p" ] || printf '%s\n' "${p%.patch}" "" > "$PATCHES/$p"
		echo "$p" >> "$PATCHES/series"
	fi
fi

n=0
while read -r f; do
	[ -e "$TOP/$f" ] || continue
	cmp -s "$LINUX/$f" "$TOP/$f" && continue
	cp "$LINUX/$f" "$TOP/$f"; log "saved $f"; n=$((n + 1))
done < <(overlay_files)

for p in $(patch_list); do
	pf=$PATCHES/$p
	files=$( (patch_files "$pf"; printf '%s\n' ${extra[$p]:-}) | awk '!seen[$0]++')
	new=$(mktemp)
	# Header: everything before the first diff.
	awk '/^(diff |--- )/{exit} {print}' "$pf" > "$new"
	for f in $files; do
		diff -u --label "a/$f" --label "b/$f" "$base/$f" "$LINUX/$f" >> "$new" && true
		[ $? -le 1 ] || die "diff failed on $f"
	done
	if ! cmp -s "$new" "$pf"; then
		mv "$new" "$pf"; log "regenerated patches/$p"; n=$((n + 1))
	else
		rm -f "$new"
	fi
done
# The tree now matches the repository: record it so 'make tree' sees no edits.
(cd "$LINUX" && xargs -a .pghot-manifest -r sha256sum > .pghot-sums)
log "refresh: $n files updated"
