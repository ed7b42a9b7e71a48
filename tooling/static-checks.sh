#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Static checks on this repository's own kernel files: checkpatch --strict
# on every new file and every patch, and a W=1 + sparse (C=2) build of every
# new kernel object, kernel-doc on every new kernel file, and a row in the
# admin guide for every counter and knob. Any message fails the check.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$LINUX/.pghot-complete" ] || die "no assembled tree; run 'make tree'"
fail=0
# Run inside the assembled tree, so checks that look at the tree (e.g.
# documented boot parameters) see the series applied.
cp_flags=(--strict --terse --no-summary --show-types
	  --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG)
n=0
while read -r f; do
	case "$f" in *.c|*.h|*.rst|*.sh|Kconfig*|Makefile*) ;; *) continue ;; esac
	n=$((n + 1))
	# SPDX tags are checked by checkpatch only on patches; check here.
	head -2 "$TOP/$f" | grep -q 'SPDX-License-Identifier' ||
		{ echo "$f: no SPDX-License-Identifier"; fail=1; }
	out=$(cd "$LINUX" && scripts/checkpatch.pl "${cp_flags[@]}" -f "$f" 2>&1) || true
	[ -z "$out" ] || { echo "$out"; fail=1; }
done < <(overlay_files)
for p in $(patch_list); do
	n=$((n + 1))
	out=$(cd "$LINUX" && scripts/checkpatch.pl --strict --terse --no-summary \
		--no-signoff --show-types "$PATCHES/$p" 2>&1) || true
	[ -z "$out" ] || { echo "$p: $out"; fail=1; }
done
log "checkpatch --strict: $n files and patches"

# W=1 and sparse on each new kernel object (selftests are user space).
# Debian's sparse 0.6.4 predates __typeof_unqual__, which 7.3's headers
# use and which the kernel's checker-valid.sh probes for; map it to
# __typeof__ for sparse (qualifier stripping matters only for codegen).
sparse_cf=-D__typeof_unqual__=__typeof__
[ "$("$LINUX/scripts/checker-valid.sh" sparse $sparse_cf)" = 1 ] ||
	die "sparse is missing or unusable; run 'make setup'"
objs=$(overlay_files | grep -v '^tools/' | grep '\.c$' | sed 's/\.c$/.o/' || true)
if [ -n "$objs" ]; then
	# W=1 (kernel-doc included) speaks only for what it compiles: make it
	# compile every object, whatever an earlier build left up to date.
	for o in $objs; do rm -f "${KBUILD:-$OUT/build}/$o"; done
	out=$("$TOP/tooling/build.sh" W=1 C=2 CF="$sparse_cf" $objs 2>&1) || { echo "$out"; fail=1; }
	warn=$(echo "$out" | grep -E 'warning:|error:' || true)
	[ -z "$warn" ] || { echo "$warn"; fail=1; }
	log "W=1 + sparse: $(echo $objs | wc -w) objects"
fi
# kernel-doc on every new kernel file, headers included (W=1 checks only
# the .c files it compiles).
kd=$(overlay_files | grep -v '^tools/' | grep -E '\.[ch]$' || true)
if [ -n "$kd" ]; then
	# shellcheck disable=SC2086
	out=$(cd "$LINUX" && scripts/kernel-doc -none -Wall $kd 2>&1) || true
	[ -z "$out" ] || { echo "$out"; fail=1; }
	log "kernel-doc: $(echo $kd | wc -w) files"
fi

# The admin guide's tables are the one place that lists the interface:
# every counter the series adds to /proc/vmstat and every file of pghot's
# debugfs directory (rate_limit_MBps, ibs/ and inject are made elsewhere)
# must have its row there.
guide=$TOP/Documentation/admin-guide/mm/pghot.rst
names=$( (grep -oE '"(pghot|hwhint)_[a-z_]+"' "$LINUX/mm/vmstat.c"
	  grep -oE '^[[:space:]]*\{ "[a-z_]+",' "$TOP/mm/pghot/debugfs.c" |
		grep -oE '"[a-z_]+"'
	  echo '"stats"') | tr -d '"' | sort -u)
[ "$(echo "$names" | wc -l)" -ge 30 ] ||
	{ echo "docs check: found too few counters and knobs to check"; fail=1; }
bt='``'
for name in $names; do
	grep -qE "^$bt$name$bt( |\$)" "$guide" ||
		{ echo "$guide: no table row for $name"; fail=1; }
done
log "docs: $(echo "$names" | wc -l) counters and knobs checked for a row"
[ $fail = 0 ] || die "static checks failed"
log "static checks passed"
