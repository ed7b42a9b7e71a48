#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series: turn this repository into a git format-patch series with a
# cover letter, in out/series/. The steps are listed in
# tooling/series/steps; each becomes one commit on a git copy of the base
# tree (out/series-work), then format-patch writes them out. The result
# after the last step must be the assembled tree (out/linux) for every
# file the series touches, and every file of the repository must belong to
# exactly one step: both are checked.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$LINUX/.pghot-complete" ] || die "no assembled tree; run 'make tree'"
SER=$TOP/tooling/series
WORK=$OUT/series-work
DEST=$OUT/series
IDENT="$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"
git_w() { git -C "$WORK" -c core.looseCompression=0 -c gc.auto=0 "$@"; }

trim() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' <<< "$1"; }

# The pghot Kconfig with only the blocks of symbols in $1.
gen_kconfig() {
	awk -v keep=" $1 " '
		/^config / { on = index(keep, " " $2 " ") > 0; started = 1 }
		!started || on { print }
	' "$TOP/mm/pghot/Kconfig" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

# The pghot Makefile for objects $1 (and the injection object if $2).
gen_makefile() {
	printf '# SPDX-License-Identifier: GPL-2.0\n\nobj-y := %s\n' "$1"
	[ -z "$2" ] || printf 'obj-$(CONFIG_PGHOT_HWHINT_INJECT) += inject.o\n'
}

log "base tree into git ($WORK)"
rm -rf "$DEST"
mkdir -p "$DEST"
base_tree_git "$WORK"

declare -A owner=()
syms="" objs="" inject="" n=0
while IFS='|' read -r name pats files ksyms kobjs msg; do
	name=$(trim "$name"); [ -n "$name" ] || continue
	case $name in \#*) continue ;; esac
	pats=$(trim "$pats") files=$(trim "$files") ksyms=$(trim "$ksyms")
	kobjs=$(trim "$kobjs") msg=$(trim "$msg")
	n=$((n + 1))
	for p in $pats; do
		patch -d "$WORK" -p1 -F0 -s --no-backup-if-mismatch < "$PATCHES/$p" ||
			die "step $name: $p does not apply"
	done
	# Earlier versions of files a later step brings whole: the final file
	# trimmed by tooling/series/trim/<step>/<path>.patch (a diff from the
	# final file to this step's version).
	if [ -d "$SER/trim/$name" ]; then
		while read -r pf; do
			f=${pf#"$SER/trim/$name/"}
			f=${f%.patch}
			[ -z "${owner[$f]:-}" ] ||
				die "step $name: $f arrived whole in step ${owner[$f]} already"
			mkdir -p "$WORK/$(dirname "$f")"
			cp "$TOP/$f" "$WORK/$f"
			patch -s -F0 --no-backup-if-mismatch "$WORK/$f" < "$pf" ||
				die "step $name: $pf does not apply to $f (regenerate it)"
		done < <(find "$SER/trim/$name" -name '*.patch' | LC_ALL=C sort)
	fi
	for g in $files; do
		found=0
		for f in $(cd "$TOP" && compgen -G "$g" || true); do
			[ -z "${owner[$f]:-}" ] || die "$f is in steps ${owner[$f]} and $name"
			owner[$f]=$name found=1
			mkdir -p "$WORK/$(dirname "$f")"
			cp "$TOP/$f" "$WORK/$f"
		done
		[ $found = 1 ] || die "step $name: nothing matches $g"
	done
	if [ -n "$ksyms$kobjs" ]; then
		syms="$syms $ksyms"
		for o in $kobjs; do
			if [ "$o" = inject ]; then inject=1; else objs="$objs $o"; fi
		done
		mkdir -p "$WORK/mm/pghot"
		gen_kconfig "$syms" > "$WORK/mm/pghot/Kconfig"
		gen_makefile "$(trim "$objs")" "$inject" > "$WORK/mm/pghot/Makefile"
		owner[mm/pghot/Kconfig]=generated owner[mm/pghot/Makefile]=generated
	fi
	if [ "$msg" = - ]; then
		set -- $pats
		[ $# -ge 1 ] || die "step $name: message '-' needs an upstream patch"
		sed -n '/^---$/q;p' "$PATCHES/$1" > "$OUT/.series-msg"
	else
		cp "$SER/$msg" "$OUT/.series-msg"
	fi
	printf '\nSigned-off-by: %s\n' "$IDENT" >> "$OUT/.series-msg"
	git_w add -A -f
	git_w commit -q -F "$OUT/.series-msg"
	log "step $n: $name"
done < "$SER/steps"
rm -f "$OUT/.series-msg"

# Every file of the repository belongs to a step, and the series ends
# where the assembled tree is.
bad=0
while read -r f; do
	[ -n "${owner[$f]:-}" ] || { log "$f is in no step"; bad=1; }
	cmp -s "$WORK/$f" "$LINUX/$f" || { log "$f differs after the series"; bad=1; }
done < <(overlay_files)
for p in $(patch_list); do
	for f in $(patch_files "$PATCHES/$p"); do
		cmp -s "$WORK/$f" "$LINUX/$f" || { log "$f differs after the series"; bad=1; }
	done
done
[ $bad = 0 ] || die "the series and the repository disagree (see above)"

git_w format-patch -q --cover-letter --subject-prefix="RFC PATCH" \
	-o "$DEST" HEAD~$n
cover=$(ls "$DEST"/0000-cover-letter.patch)

# The cover letter: subject and text from tooling/series/cover.txt, with
# the medians of out/demo/results.json if make demo has run.
python3 - "$cover" "$SER/cover.txt" "$OUT/demo/results.json" \
	"$(git -C "$TOP" rev-parse HEAD 2>/dev/null)" <<'PY'
import json, os, re, sys
cover, tmpl, res, head = sys.argv[1:5]
subject, _, body = open(tmpl).read().partition("\n\n")
rows = []
data = json.load(open(res)) if os.path.exists(res) else []
made = {r.get("commit") for r in data}
if not data:
    table = "  (no figures: run make demo for them)\n"
elif made != {head}:
    # Figures of another tree, or of uncommitted changes, would mislead.
    table = ("  (no figures: out/demo/results.json comes from "
             + ", ".join(sorted(str(m) for m in made))
             + f", not from {head}; run make demo again)\n")
else:
    fmt = lambda v, spec: "-" if v is None else format(v, spec)
    for r in data:
        name = r.get("label", r["config"])
        if r["config"] in ("C5", "C6"):
            name += "*"
        failed = f"  ({r['failed_runs']} failed)" if r["failed_runs"] else ""
        if not r["runs"]:
            rows.append(f"  {r['scenario']:10} {name:6} all {r['failed_runs']} runs failed")
            continue
        hot = 100.0 * r["promoted_hot_pages"] / r["hot_pages"]
        if r["scenario"] == "latency":
            # The emulated CXL box: ops/s against the hot set on node 0.
            rows.append(f"  {r['scenario']:10} {name:6} {r['runs']:>4} {'':>5} {hot:6.1f}%"
                        f"  ops/s {fmt(r.get('avg_frac_c0'), '.2f')} of C0, last 5 s"
                        f" {fmt(r.get('end_frac_c0'), '.2f')}" + failed)
            continue
        cold = (f"{100.0 * r['promoted_cold_pages'] / r['cold_pages']:5.1f}%"
                if r["cold_pages"] else "     -")
        rows.append(f"  {r['scenario']:10} {name:6} {r['runs']:>4} {r['elapsed_s']:5.0f}"
                    f" {hot:6.1f}%   {cold}"
                    f"  {fmt(r['seconds_to_95pct'], '.1f'):>6}"
                    f"  {r['migrations_per_hot_page']:7.2f}"
                    f"  {fmt(r.get('wasted_migrations'), ',.0f'):>8}"
                    f"  {100.0 * r['demoted_within_10s']:6.1f}%" + failed)
    table = ("  scenario   cfg    runs     s  hot up   cold up  s to 95%  migr/pg"
             "    wasted  down<10s\n" + "\n".join(rows)
             + "\n  (*: oracle hints; s: the run's median length)\n")
if not rows:
    # No medians to speak of: drop the sentence that would announce them.
    body = re.sub(r"\s*Medians of the runs each row names,\s+of the seconds it\s+names:",
                  "", body)
body = body.replace("@RESULTS@", table)
text = open(cover).read()
text = text.replace("*** SUBJECT HERE ***", subject.strip())
text = text.replace("*** BLURB HERE ***", body.rstrip() + "\n")
open(cover, "w").write(text)
PY
log "series: $n patches and a cover letter in $DEST"
ls "$DEST"
