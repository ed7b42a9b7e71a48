#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Save edits made in out/linux back into this repository:
#  - new files of the series that were edited in out/linux since the last
#    assembly are copied back (never over an edit made in the repository);
#  - each patch in patches/series is regenerated from the base tree and
#    out/linux for the upstream files it owns, keeping its header.
# An upstream file may be changed by several patches (e.g. vmstat counters
# that arrive with their users): its hunks in all but the last of them are
# kept as they are, and the last one is regenerated against the state the
# earlier ones leave. To change an earlier patch's part, edit that patch.
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

# A new file is copied back only if it was edited in out/linux since the
# last assembly; if it was edited in the repository too, stop.
n=0
while read -r sum f; do
	[ -e "$TOP/$f" ] && [ -e "$LINUX/$f" ] || continue
	now=$(sha256sum < "$LINUX/$f" | cut -d' ' -f1)
	[ "$now" = "$sum" ] && continue
	repo=$(sha256sum < "$TOP/$f" | cut -d' ' -f1)
	[ "$repo" = "$sum" ] || [ "$repo" = "$now" ] ||
		die "$f was changed both in out/linux and in the repository; merge by hand"
	cp "$LINUX/$f" "$TOP/$f"; log "saved $f"; n=$((n + 1))
done < <(grep -v '^$' "$LINUX/.pghot-sums" 2>/dev/null | sed 's/  / /')

# The files of each patch, and the last patch that changes each file.
declare -A files_of=() last=()
for p in $(patch_list); do
	files_of[$p]=$( (patch_files "$PATCHES/$p"; printf '%s\n' ${extra[$p]:-}) |
			awk 'NF && !seen[$0]++')
	for f in ${files_of[$p]}; do last[$f]=$p; done
done

# state/<file>: the file as the patches so far leave it.
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
for p in $(patch_list); do
	pf=$PATCHES/$p
	new=$(mktemp)
	# Header: the commit message, everything before the "---" line (or
	# the first diff); then "---" and one git-style diff per file.
	awk '/^(---$|diff |--- )/{exit} {print}' "$pf" > "$new"
	echo "---" >> "$new"
	for f in ${files_of[$p]}; do
		if [ ! -e "$state/$f" ]; then
			mkdir -p "$state/$(dirname "$f")"
			cp "$base/$f" "$state/$f"
		fi
		if [ "${last[$f]}" = "$p" ]; then
			echo "diff --git a/$f b/$f" >> "$new"
			diff -u --label "a/$f" --label "b/$f" "$state/$f" "$LINUX/$f" >> "$new" && true
			[ $? -le 1 ] || die "diff failed on $f"
		else
			# An earlier patch's part: kept, and applied to the state.
			hunk=$(mktemp)
			awk -v f="$f" '/^diff --git /{on = ($3 == "a/" f)} on' "$pf" > "$hunk"
			cat "$hunk" >> "$new"
			patch -s -F0 --no-backup-if-mismatch "$state/$f" < "$hunk" ||
				die "$p: its part of $f does not apply"
			rm -f "$hunk"
		fi
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
