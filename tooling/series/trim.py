#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the trim patches of tooling/series/trim/ (see tooling/series/steps).

A new header that grows over several steps of the series arrives whole in
its last step; for the earlier ones, series.sh applies a patch that trims
the final file down to that step's version. This script writes those
patches from the final file and the table below: the version of a step
is the final file without every blank-line separated paragraph that
names a symbol arriving in a later step. Run it after changing such a
header:  python3 tooling/series/trim.py
"""
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRIM = os.path.join(TOP, "tooling", "series", "trim")

# file: [(step, symbols that arrive with it)], in series order; the last
# step brings the file whole.
TABLE = {
    "include/linux/pghot.h": [
        ("store", ["struct page", "pghot_tracking", "pghot_free_pages"]),
        ("kmigrated", ["enum pghot_src", "pghot_skip_reason"]),
        ("core", ["struct folio", "PGHOT_SRC_MASK", "pghot_enabled_sources",
                  "pghot_record_access", "pghot_hint_fault",
                  "pghot_folio_demoted", "pghot_src_enabled"]),
        ("hwhint", ["struct seq_file", "pghot_hwhint_provider",
                    "pghot_hwhint_report", "pghot_hwhint_register",
                    "pghot_hwhint_unregister", "pghot_hwhint_set_state"]),
        ("debugfs", ["struct dentry", "pghot_debugfs_dir"]),
    ],
}


def names(symbols):
    return re.compile(r"\b(?:%s)\b" % "|".join(re.escape(s) for s in symbols))


def main():
    for path, steps in TABLE.items():
        final = open(os.path.join(TOP, path)).read()
        paras = final.split("\n\n")
        for i, (step, _) in enumerate(steps[:-1]):
            later = names([s for _, syms in steps[i + 1:] for s in syms])
            kept = [p for p in paras if not later.search(p)]
            version = "\n\n".join(kept)
            if not version.endswith("\n"):
                version += "\n"
            out = os.path.join(TRIM, step, path + ".patch")
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with tempfile.NamedTemporaryFile("w", delete=False) as t:
                t.write(version)
            diff = subprocess.run(
                ["diff", "-u", "--label", "a/" + path, "--label", "b/" + path,
                 os.path.join(TOP, path), t.name],
                capture_output=True, text=True).stdout
            os.unlink(t.name)
            with open(out, "w") as f:
                f.write(diff)
            print(f"{out}: {len(paras) - len(kept)} paragraphs trimmed")


if __name__ == "__main__":
    sys.exit(main())
