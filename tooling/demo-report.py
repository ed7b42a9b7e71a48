#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise the raw runs of tooling/guest-demo.sh.

Reads out/demo/raw/<scenario>-<config>-<rep>.json (one pghot-bench JSON
object each; a <...>.failed file stands for a run that failed), prints
reference-style Table 1 (time, ops/s, promotion, churn) and Table 2
(vmstat deltas) per scenario, each figure the median of the per-run
figures, writes out/demo/results.json and plots the hot set's residency
over time per configuration with gnuplot (out/demo/<scenario>.svg).

Every derived figure is computed per run from that run's own counters and
samples, then the median is taken: a "migrations per hot page" is never a
sum of medians of different runs. "Promoted" means on a top-tier node at
the end of the run.
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
    ("", "pghot_ready"), ("", "pghot_promoted"), ("", "pgpromote_candidate"),
    ("", "pgdemote_kswapd"), ("", "pgdemote_direct"),
    ("", "pgdemote_khugepaged"), ("", "pgdemote_proactive"),
    ("", "pgmigrate_success"),
]
DEMOTIONS = ["pgdemote_kswapd", "pgdemote_direct", "pgdemote_khugepaged",
             "pgdemote_proactive"]
CONFIG_ORDER = ["C0", "C1", "C2", "C4", "C5", "C6", "S1", "S2"]
SCENARIO_ORDER = ["promotion", "precision", "overcommit", "coldhog",
                  "scale-256", "scale-1024", "scale-2048"]


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def load():
    """{scenario: {config: ([runs], failed count)}}"""
    runs = {}
    for path in sorted(glob.glob(os.path.join(OUT, "raw", "*"))):
        if path.endswith(".failed"):
            with open(path) as f:
                scenario, config, _ = f.read().split()[0].split("/")
            runs.setdefault(scenario, {}).setdefault(config, [[], 0])[1] += 1
            continue
        if not path.endswith(".json"):
            continue
        try:
            with open(path) as f:
                r = json.load(f)
        except (OSError, ValueError) as e:
            # A run that wrote nothing useful failed: count it as such.
            name = os.path.basename(path)[:-len(".json")]
            scenario, config, _ = name.rsplit("-", 2)
            print(f"demo: {path}: {e}: counted as failed", file=sys.stderr)
            runs.setdefault(scenario, {}).setdefault(config, [[], 0])[1] += 1
            continue
        scenario, config, _ = r["label"].split("/")
        runs.setdefault(scenario, {}).setdefault(config, [[], 0])[0].append(r)
    return runs


def per_run(r):
    """The derived figures of one run, from its own counters."""
    vm = r["vmstat"]
    promotions = vm.get("pgpromote_success", 0)
    demotions = sum(vm.get(n, 0) for n in DEMOTIONS)
    gain = r["promoted_hot_pages"] - r.get("hot_pages_top_at_start", 0)
    churn = r.get("churn", {})
    up = churn.get("up", 0)
    return {
        "migrations": promotions + demotions,
        "migrations_per_hot_page": (promotions + demotions) / r["hot_pages"],
        # Moves that did not end as hot pages on the top tier.
        "wasted_migrations": promotions + demotions - gain,
        "demoted_within_10s": (churn.get("down_within_window", 0) / up
                               if up else 0.0),
    }


def summarise(scenario, config, rs, failed):
    derived = [per_run(r) for r in rs]
    vm = {}
    for name in sorted({n for r in rs for n in r["vmstat"]}):
        vm[name] = median([r["vmstat"].get(name) for r in rs])
    row = {
        "scenario": scenario, "config": config, "runs": len(rs),
        "failed_runs": failed,
        "commit": os.environ.get("DEMO_COMMIT"),
    }
    if not rs:
        return row
    row.update({
        "elapsed_s": median([r["elapsed_s"] for r in rs]),
        "hot_pages": rs[0]["hot_pages"],
        "promoted_hot_pages": median([r["promoted_hot_pages"] for r in rs]),
        # A run that never got there counts as never; the median then too.
        "seconds_to_95pct": median([r["seconds_to_95pct"] for r in rs])
        if all(r["seconds_to_95pct"] is not None for r in rs) else None,
        "cold_pages": rs[0]["cold_pages"],
        "promoted_cold_pages": median([r["promoted_cold_pages"] for r in rs]),
        "ops_per_sec": median([r["ops_per_sec"] for r in rs]),
        "vmstat": vm,
    })
    for key in derived[0]:
        row[key] = median([d[key] for d in derived])
    return row


def fmt(v, spec=",.0f"):
    return "-" if v is None else format(v, spec)


def tables(scenario, rows):
    print(f"\n== {scenario}: median of the runs of each configuration\n")
    print("Table 1")
    print(f"{'config':7}{'runs':>6}{'time s':>8}{'ops/s':>13}{'hot up':>9}"
          f"{'s to 95%':>10}{'cold up':>9}{'migr/hot pg':>12}{'wasted':>9}"
          f"{'down<10s':>9}")
    for r in rows:
        runs = f"{r['runs']}" + (f"+{r['failed_runs']}F" if r["failed_runs"] else "")
        if not r["runs"]:
            print(f"{r['config']:7}{runs:>6}  all runs failed")
            continue
        hot = 100.0 * r["promoted_hot_pages"] / r["hot_pages"]
        cold = (f"{100.0 * r['promoted_cold_pages'] / r['cold_pages']:.1f}%"
                if r["cold_pages"] else "-")
        print(f"{r['config']:7}{runs:>6}{r['elapsed_s']:>8.1f}"
              f"{r['ops_per_sec']:>13,.0f}{hot:>8.1f}%"
              f"{fmt(r['seconds_to_95pct'], '.1f'):>10}{cold:>9}"
              f"{r['migrations_per_hot_page']:>12.2f}"
              f"{fmt(r['wasted_migrations']):>9}"
              f"{100.0 * r['demoted_within_10s']:>8.1f}%")
    print("  (F: failed runs, shown and not in the medians; hot/cold up: on a\n"
          "   top-tier node at the end; wasted: promotions + demotions - net\n"
          "   gain of hot pages on the top tier; down<10s: of the hot pages\n"
          "   seen going up, the share seen coming down within 10 s)")
    rows = [r for r in rows if r["runs"]]
    print("\nTable 2 (vmstat deltas)")
    print(f"{'':5}{'counter':30}" + "".join(f"{r['config']:>12}" for r in rows))
    for m, name in COUNTERS:
        vals = [r["vmstat"].get(name) for r in rows]
        if all(v is None for v in vals):
            continue
        print(f"{m:5}{name:30}" + "".join(f"{fmt(v):>12}" for v in vals))
    # Then whatever else moved: why ready pages stayed, ignored reports.
    known = {name for _, name in COUNTERS}
    others = sorted({n for r in rows for n, v in r["vmstat"].items()
                     if v and n not in known})
    for name in others:
        vals = [r["vmstat"].get(name) for r in rows]
        print(f"{'':5}{name:30}" + "".join(f"{fmt(v):>12}" for v in vals))


def median_run(rs):
    """The run with the median seconds-to-95% (never counts as last)."""
    inf = float("inf")
    order = sorted(rs, key=lambda x: inf if x["seconds_to_95pct"] is None
                   else x["seconds_to_95pct"])
    return order[len(order) // 2]


def plot(scenario, runs_by_config):
    """Hot-set pages on the top tier over time, one line per config."""
    series = []
    for config, rs in runs_by_config:
        if not rs:
            continue
        r = median_run(rs)
        dat = os.path.join(OUT, f"{scenario}-{config}.dat")
        with open(dat, "w") as f:
            for s in r["samples"]:
                f.write(f"{s['t']} {s['hot_top']} {s['hot_mem']}\n")
        series.append((config, dat))
    if not series:
        return
    svg = os.path.join(OUT, f"{scenario}.svg")
    cmds = [
        "set terminal svg size 900,500 dynamic",
        f"set output '{svg}'",
        f"set title 'pghot demo, {scenario}: hot-set pages on the top tier "
        "(solid) and on the lower tier (dashed); per configuration the run "
        "with the median time to 95%'",
        "set xlabel 'seconds'", "set ylabel 'pages'", "set key outside right",
        "plot " + ", ".join(
            f"'{d}' using 1:2 with lines lw 2 lc {i + 1} title '{c} top tier', "
            f"'{d}' using 1:3 with lines lw 1 dt 2 lc {i + 1} title '{c} lower tier'"
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
    order = SCENARIO_ORDER + sorted(set(runs) - set(SCENARIO_ORDER))
    for scenario in order:
        if scenario not in runs:
            continue
        configs = sorted(runs[scenario].items(),
                         key=lambda kv: (CONFIG_ORDER.index(kv[0])
                                         if kv[0] in CONFIG_ORDER else 99))
        rows = [summarise(scenario, c, rs, failed)
                for c, (rs, failed) in configs]
        tables(scenario, rows)
        plot(scenario, [(c, rs) for c, (rs, _) in configs])
        results.extend(rows)
    path = os.path.join(OUT, "results.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print(f"results: {path}")


if __name__ == "__main__":
    main()
