#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise the raw runs of tooling/guest-demo.sh.

Reads out/demo/raw/<scenario>-<config>-<rep>.json (one pghot-bench JSON
object each), prints reference-style Table 1 (time, ops/s, promotion) and
Table 2 (vmstat deltas) per scenario with the median of the runs, writes
out/demo/results.json and plots the hot set's residency over time per
configuration with gnuplot (out/demo/<scenario>.svg).
"""
import glob
import json
import os
import statistics
import subprocess
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "out/demo"

# The reference's Table 2 rows, then pghot's own.
COUNTERS = [
    ("M1", "pgpromote_success"), ("M2", "pgpromote_candidate_nrl"),
    ("M3", "numa_pages_migrated"), ("M4", "numa_pte_updates"),
    ("M5", "numa_hint_faults"), ("M6", "pghot_recorded_accesses"),
    ("M7", "pghot_recorded_hintfaults"), ("M8", "pghot_recorded_hwhints"),
    ("M9", "hwhint_total_events"), ("M10", "hwhint_dram_accesses"),
    ("M11", "hwhint_extmem_accesses"), ("M12", "hwhint_useful_events"),
    ("M13", "hwhint_dropped_events"), ("", "pghot_reported_hwhints"),
    ("", "pghot_ready"), ("", "pgpromote_candidate"),
    ("", "pgdemote_kswapd"), ("", "pgdemote_direct"),
    ("", "pgmigrate_success"),
]
CONFIG_ORDER = ["C1", "C2", "C4", "C5", "C6"]


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def load():
    runs = {}
    for path in sorted(glob.glob(os.path.join(OUT, "raw", "*.json"))):
        try:
            with open(path) as f:
                r = json.load(f)
        except (OSError, ValueError) as e:
            print(f"demo: skipping {path}: {e}", file=sys.stderr)
            continue
        scenario, config, _ = r["label"].split("/")
        runs.setdefault(scenario, {}).setdefault(config, []).append(r)
    return runs


def summarise(scenario, config, rs):
    vm = {}
    names = sorted({n for r in rs for n in r["vmstat"]})
    for name in names:
        vals = [r["vmstat"].get(name) for r in rs if name in r["vmstat"]]
        if vals:
            vm[name] = median(vals)
    promotions = vm.get("pgpromote_success", 0) or 0
    demotions = (vm.get("pgdemote_kswapd", 0) or 0) + (vm.get("pgdemote_direct", 0) or 0)
    return {
        "scenario": scenario, "config": config, "runs": len(rs),
        "elapsed_s": median([r["elapsed_s"] for r in rs]),
        "hot_pages": rs[0]["hot_pages"],
        "promoted_hot_pages": median([r["promoted_hot_pages"] for r in rs]),
        "seconds_to_95pct": median([r["seconds_to_95pct"] for r in rs])
        if all(r["seconds_to_95pct"] is not None for r in rs) else None,
        "cold_pages": rs[0]["cold_pages"],
        "promoted_cold_pages": median([r["promoted_cold_pages"] for r in rs]),
        "ops_per_sec": median([r["ops_per_sec"] for r in rs]),
        "migrations": promotions + demotions,
        "vmstat": vm,
    }


def fmt(v, spec=",.0f"):
    return "-" if v is None else format(v, spec)


def tables(scenario, rows):
    print(f"\n== {scenario}: median of {rows[0]['runs']} runs each\n")
    print("Table 1")
    print(f"{'config':7}{'time s':>9}{'ops/s':>14}{'hot promoted':>14}"
          f"{'s to 95%':>10}{'cold promoted':>15}{'migr/hot page':>15}")
    for r in rows:
        hot = 100.0 * r["promoted_hot_pages"] / r["hot_pages"]
        cold = (f"{100.0 * r['promoted_cold_pages'] / r['cold_pages']:.1f}%"
                if r["cold_pages"] else "-")
        print(f"{r['config']:7}{r['elapsed_s']:>9.1f}{r['ops_per_sec']:>14,.0f}"
              f"{hot:>13.1f}%{fmt(r['seconds_to_95pct'], '.1f'):>10}{cold:>15}"
              f"{r['migrations'] / r['hot_pages']:>15.2f}")
    print("\nTable 2 (vmstat deltas)")
    print(f"{'':5}{'counter':28}" + "".join(f"{r['config']:>12}" for r in rows))
    for m, name in COUNTERS:
        vals = [r["vmstat"].get(name) for r in rows]
        if all(v is None for v in vals):
            continue
        print(f"{m:5}{name:28}" + "".join(f"{fmt(v):>12}" for v in vals))
    # Then whatever else moved: why ready pages stayed, ignored reports.
    known = {name for _, name in COUNTERS}
    others = sorted({n for r in rows for n, v in r["vmstat"].items()
                     if v and n not in known})
    for name in others:
        vals = [r["vmstat"].get(name) for r in rows]
        print(f"{'':5}{name:28}" + "".join(f"{fmt(v):>12}" for v in vals))


def plot(scenario, runs_by_config):
    """Hot-set pages on the top tier over time, one line per config."""
    series = []
    for config, rs in runs_by_config:
        # The run with the median throughput stands for the config.
        r = sorted(rs, key=lambda x: x["ops_per_sec"])[len(rs) // 2]
        dat = os.path.join(OUT, f"{scenario}-{config}.dat")
        with open(dat, "w") as f:
            for s in r["samples"]:
                f.write(f"{s['t']} {s['hot_top']} {r['hot_pages'] - s['hot_top']}\n")
        series.append((config, dat))
    svg = os.path.join(OUT, f"{scenario}.svg")
    cmds = [
        "set terminal svg size 900,500 dynamic",
        f"set output '{svg}'",
        f"set title 'pghot demo, {scenario}: hot-set pages on the top tier "
        "(solid) and on node 2 (dashed)'",
        "set xlabel 'seconds'", "set ylabel 'pages'", "set key outside right",
        "plot " + ", ".join(
            f"'{d}' using 1:2 with lines lw 2 lc {i + 1} title '{c} top tier', "
            f"'{d}' using 1:3 with lines lw 1 dt 2 lc {i + 1} title '{c} node 2'"
            for i, (c, d) in enumerate(series)),
    ]
    try:
        subprocess.run(["gnuplot"], input="\n".join(cmds), text=True, check=True)
        print(f"\nplot: {svg}")
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"demo: no plot for {scenario}: {e}", file=sys.stderr)


def main():
    runs = load()
    if not runs:
        sys.exit("demo: no results in " + os.path.join(OUT, "raw"))
    results = []
    for scenario in ["promotion", "precision", "overcommit"]:
        if scenario not in runs:
            continue
        configs = sorted(runs[scenario].items(),
                         key=lambda kv: CONFIG_ORDER.index(kv[0]))
        rows = [summarise(scenario, c, rs) for c, rs in configs]
        tables(scenario, rows)
        plot(scenario, configs)
        results.extend(rows)
    path = os.path.join(OUT, "results.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print(f"results: {path}")


if __name__ == "__main__":
    main()
