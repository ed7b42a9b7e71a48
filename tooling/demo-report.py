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
import math
import os
import re
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
    ("", "pghot_ready"), ("", "pghot_region_hot"), ("", "pghot_region_ready"),
    ("", "pghot_promoted"), ("", "pgpromote_candidate"),
    ("", "pgdemote_kswapd"), ("", "pgdemote_direct"),
    ("", "pgdemote_khugepaged"), ("", "pgdemote_proactive"),
    ("", "pgmigrate_success"),
]
DEMOTIONS = ["pgdemote_kswapd", "pgdemote_direct", "pgdemote_khugepaged",
             "pgdemote_proactive"]
CONFIG_ORDER = ["C0", "C1", "C2", "C4", "C4-t1", "C5", "C6", "P1", "P2", "L1",
                "L2", "A1", "A2", "S1", "S2", "S3"]
# Hints no sampler delivers: every hot page reported every second.
ORACLE = {"C5", "C6"}
# The goals where the top tier cannot hold the hot set (SPEC): pghot's
# waste at most legacy's (C2) plus this share of the hot set, and at most
# this share of the hot pages that went up back down within 10 s.
WASTE_GOAL_PCT = 5.0
DOWN_SOON_GOAL_PCT = 5.0
WASTE_SCENARIOS = {"overcommit", "coldhog"}
SCENARIO_ORDER = ["promotion", "precision", "overcommit", "coldhog",
                  "scale-256", "scale-1024", "scale-2048"]


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


# <scenario>-<config>-<rep>; a sampled config is S1-d0.07 (its density).
# C4 at freq_threshold 1 is C4-t1.
RAW_NAME = re.compile(r"^(.*)-([A-Z]\d(?:-d[0-9.]+|-t\d)?)-(\d+)$")


def load():
    """{scenario: {config: ([runs], failed count)}}"""
    runs = {}
    for path in sorted(glob.glob(os.path.join(OUT, "raw", "*"))):
        if os.path.basename(path).startswith("latency-"):
            continue  # latency_report() reads its own
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
            m = RAW_NAME.match(os.path.basename(path)[:-len(".json")])
            if not m:
                print(f"demo: {path}: not a run's name, ignored", file=sys.stderr)
                continue
            scenario, config = m.group(1), m.group(2)
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
    # Censored: only hot pages that went up early enough to be seen
    # coming down within the window (runs from before have no such
    # figure: every page seen going up).
    up = churn.get("up_settled", churn.get("up", 0))
    soon = churn.get("down_within_window_settled",
                     churn.get("down_within_window", 0))
    # Promotions that did not end as hot pages on the top tier: of cold
    # data, or of hot pages that came down again, seen or not (a bounce
    # shorter than a sample shows here, from the kernel's counter).
    not_kept = max(promotions - max(gain, 0), 0)
    # Hot-set pages seen coming down (move_pages() samples): each costs a
    # demotion and a promotion back. Demotions of other data (cold data
    # exchanged for hot) are not waste.
    hot_down = churn.get("down", 0)
    return {
        "migrations": promotions + demotions,
        "migrations_per_hot_page": (promotions + demotions) / r["hot_pages"],
        "promotions_not_kept": not_kept,
        "hot_pages_demoted": hot_down,
        "wasted_migrations": not_kept + hot_down,
        "demoted_within_10s": soon / up if up else 0.0,
        "kmigrated_cpu_s": r.get("kmigrated_cpu_s"),
    }


def shown(r):
    """A row's name in the tables; oracle rows say so."""
    name = r.get("label", r["config"])
    return f"{name} oracle" if r["config"] in ORACLE else name


def feed_density(feed, r):
    """Samples per hot page per second the feeder's record @feed says the
    sampler delivered in run @r: its samples over the page-seconds the sets
    spent on the lower tier (a warm page counts 1/warm_ratio of a hot one:
    it is accessed that much less often). None if the sets never were
    there."""
    ratio = r["params"].get("warm_ratio") or 0
    exposure, prev = 0.0, None
    for smp in r["samples"]:
        lower = smp["hot_mem"] + (smp.get("cold_mem", 0) / ratio if ratio else 0)
        if prev is not None:
            exposure += (smp["t"] - prev[0]) * (lower + prev[1]) / 2
        prev = (smp["t"], lower)
    return feed["samples"] / exposure if exposure > 0 else None


def exposure(r, key, a=0.0, b=float("inf")):
    """Page-seconds that run @r's set @key ("hot_mem", "cold_mem") spent
    on the lower tier between @a and @b seconds, from its residency
    samples."""
    total, prev = 0.0, None
    for smp in r["samples"]:
        t, v = smp["t"], smp.get(key, 0)
        if prev is not None:
            lo, hi = max(prev[0], a), min(t, b)
            if hi > lo:
                total += (hi - lo) * (v + prev[1]) / 2
        prev = (t, v)
    return total


def set_densities(stem, r):
    """Each set's own density in run @r: the samples the feeder logged
    (@stem.pfnlog, pghot-emu feed --pfn-log) on the PFNs the set had at
    the start (@stem.sets, pghot-bench --pfns-out), over the page-seconds
    the set spent on the lower tier. {"hot": d, "warm": d or None,
    "other": samples on neither set}, or None without the two files."""
    try:
        with open(stem + ".sets") as f:
            owner = {}
            for line in f:
                name, pfn = line.split()
                owner[int(pfn, 16)] = name
        counts = {"hot": 0, "cold": 0, "other": 0}
        times = {}	# PFN: its samples' times, where the log has them
        with open(stem + ".pfnlog") as f:
            for line in f:
                field = line.split()
                pfn = int(field[0], 16)
                counts[owner.get(pfn, "other")] += 1
                if len(field) > 1 and pfn in owner:
                    times.setdefault(pfn, []).append(float(field[1]))
    except (OSError, ValueError, IndexError):
        return None
    hot_e, cold_e = exposure(r, "hot_mem"), exposure(r, "cold_mem")
    out = {"hot": counts["hot"] / hot_e if hot_e > 0 else None,
           "warm": counts["cold"] / cold_e if cold_e > 0 else None,
           "other": counts["other"]}
    if times:
        out["seen"] = seen_bound(owner, times, r)
        out["hot_thirds"] = density_thirds(owner, times, r)
    return out


def density_thirds(owner, times, r):
    """The hot set's density in each third of run @r (samples on its
    pages over its page-seconds on the lower tier in that third): a
    Poisson model takes it to be the same in all three."""
    end = r["elapsed_s"]
    out = []
    for i in range(3):
        a, b = end * i / 3, end * (i + 1) / 3
        n = sum(1 for pfn, ts in times.items() if owner[pfn] == "hot"
                for x in ts if a <= x < b)
        e = exposure(r, "hot_mem", a, b)
        out.append(n / e if e > 0 else None)
    return out


def seen_bound(owner, times, r):
    """The per-page rule of the bound run on the samples this run really
    had, not on a Poisson model: for k = 1..3, the % of each set's pages
    with k samples or more by 60 s and by the end. A page stops being
    sampled once it is promoted (the sampler sends lower-tier samples
    only), so a k above the threshold the row promoted at reads low."""
    end = r["elapsed_s"]
    sizes = {"hot": 0, "cold": 0}
    for name in owner.values():
        sizes[name] += 1
    res = {}
    for t, key in ((60.0, "60s"), (end, "end")):
        for k in (1, 2, 3):
            got = {"hot": 0, "cold": 0}
            for pfn, ts in times.items():
                if sum(1 for x in ts if x <= t) >= k:
                    got[owner[pfn]] += 1
            res[f"k{k}_{key}"] = {
                n: 100.0 * got[n] / sizes[n] if sizes[n] else None
                for n in ("hot", "cold")}
    return res


def share_at(r, t):
    """(hot %, warm % or None) of run @r's sets on the top tier at its
    first residency sample at or after @t seconds; None if none."""
    for smp in r["samples"]:
        if smp["t"] >= t:
            warm = (100.0 * smp["cold_top"] / r["cold_pages"]
                    if r.get("cold_pages") else None)
            return 100.0 * smp["hot_top"] / r["hot_pages"], warm
    return None


def poisson_at_least(k, mean):
    """P(N >= @k) for N Poisson with @mean."""
    term, below = math.exp(-mean), 0.0
    for i in range(k):
        below += term
        term *= mean / (i + 1)
    return max(0.0, 1.0 - below)


def warm_floor(hot_pct, hot_mean, warm_mean):
    """The fewest warm pages, in %, that any rule fed only by a page's
    samples promotes while promoting @hot_pct % of the hot pages, with
    samples Poisson of @hot_mean and @warm_mean per page over the run.
    A page's count is all its samples say (the times add nothing for a
    Poisson process), and the ratio of the two Poisson likelihoods grows
    with the count, so the best test promotes at k samples and more, and
    at k-1 with the probability that makes up the hot share
    (Neyman-Pearson). None without a warm set."""
    if warm_mean is None or hot_mean is None or hot_pct is None:
        return None
    target = min(max(hot_pct / 100.0, 0.0), 1.0)
    pmf = lambda k, m: math.exp(-m) * m ** k / math.factorial(k)
    for k in range(60, -1, -1):
        if poisson_at_least(k, hot_mean) >= target:
            above = poisson_at_least(k + 1, hot_mean)
            p = (target - above) / pmf(k, hot_mean) if pmf(k, hot_mean) else 0.0
            return 100.0 * (poisson_at_least(k + 1, warm_mean) +
                            min(max(p, 0.0), 1.0) * pmf(k, warm_mean))
    return 100.0


def per_page_bound(k, density, warm_ratio, seconds, warm_density=None):
    """What a rule fed only by the samples reaches, in %, on a layout where
    hot and warm pages share regions: a per-page rule that keeps every
    sample of a page for the whole run and promotes at @k samples, with
    samples a Poisson process of @density per hot page per second (a warm
    page @warm_density, or @warm_ratio times less), over @seconds.
    (hot %, warm % or None)."""
    if density is None or not seconds or k < 1:
        return None, None
    hot = 100.0 * poisson_at_least(k, density * seconds)
    if warm_density is None and warm_ratio:
        warm_density = density / warm_ratio
    warm = (100.0 * poisson_at_least(k, warm_density * seconds)
            if warm_ratio and warm_density is not None else None)
    return hot, warm


def sampler_rate(sm):
    """The sampler's setting in a row's "sampler": its rate per second,
    or Pn for a fixed period (feeds from before rate mode)."""
    if sm.get("rate"):
        return str(sm["rate"])
    return f"P{sm['period']}" if sm.get("period") else "-"


def sampled_density(r):
    """The density delivered in run @r (feed_density()) and the feeder's
    record; (None, None) without the record."""
    scenario, config, rep_ = r["label"].split("/")
    stem = os.path.join(OUT, "raw", f"{scenario}-{config}-{rep_}")
    try:
        with open(stem + ".feed") as f:
            feed = json.load(f)
    except (OSError, ValueError):
        return None, None
    feed["sets"] = set_densities(stem, r)
    return feed_density(feed, r), feed


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
    if "-d" in config:
        row["config"], row["label"] = config.split("-d")[0], config
        row["density_asked"] = float(config.split("-d")[1])
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
        # --layout sparse: the untouched pages between the hot ones.
        "filler_pages": rs[0].get("filler_pages"),
        "promoted_filler_pages": median([r.get("promoted_filler_pages")
                                         for r in rs]),
        "ops_per_sec": median([r["ops_per_sec"] for r in rs]),
        "vmstat": vm,
    })
    for key in derived[0]:
        row[key] = median([d[key] for d in derived])
    if "-d" in config:
        # Sampled hints: the density asked and the one delivered.
        got = [sampled_density(r) for r in rs]
        row["density"] = median([d for d, _ in got])
        feeds = [f for _, f in got if f]
        if feeds:
            row["sampler"] = {
                "period": feeds[0].get("period"),
                "rate": feeds[0].get("rate"),
                "samples": median([f["samples"] for f in feeds]),
                "injected": median([f["injected"] for f in feeds]),
                "rejected": median([f["rejected"] for f in feeds]),
            }
        # Each set's own density where the feeder logged its samples.
        sets = [f["sets"] for f in feeds if f.get("sets")]
        if sets and len(sets) == len(rs):
            row["density_sets"] = {
                key: median([d[key] for d in sets])
                for key in ("hot", "warm", "other")}
            thirds = [d["hot_thirds"] for d in sets if d.get("hot_thirds")]
            if len(thirds) == len(sets):
                row["hot_thirds"] = [median([x[i] for x in thirds])
                                     for i in range(3)]
            seen = [d["seen"] for d in sets if d.get("seen")]
            if len(seen) == len(sets):
                row["seen_bound"] = {
                    key: {n: median([x[key][n] for x in seen])
                          for n in ("hot", "cold")}
                    for key in seen[0]}
        # The per-page bound at this row's threshold, from the density
        # delivered and the run's length (the layouts issue's table):
        # each set's own density where known.
        k = int(config.split("-d")[0][1:])
        ratio = rs[0]["params"].get("warm_ratio") or 0
        ds = row.get("density_sets") or {}
        hot_d = ds.get("hot") if ds.get("hot") is not None else row["density"]
        warm_d = ds.get("warm")
        if warm_d is None and ratio and hot_d is not None:
            warm_d = hot_d / ratio
        hot_b, warm_b = per_page_bound(k, hot_d, ratio, row["elapsed_s"],
                                       warm_d)
        row["per_page_bound"] = {"k": k, "warm_ratio": ratio,
                                 "seconds": row["elapsed_s"],
                                 "hot_pct": hot_b, "warm_pct": warm_b,
                                 "hot_density": hot_d,
                                 "warm_density": warm_d if ratio else None}
        row["seconds_to_95pct_runs"] = [r["seconds_to_95pct"] for r in rs]
        # A long run also read at 60 s: the 60-s goals from the same runs.
        if row["elapsed_s"] >= 119:
            at = [share_at(r, 60.0) for r in rs]
            if all(a is not None for a in at):
                warm60 = ([a[1] for a in at] if at[0][1] is not None
                          else None)
                row["at_60s"] = {
                    "hot_pct": median([a[0] for a in at]),
                    "warm_pct": median(warm60) if warm60 else None,
                }
                hb, wb = per_page_bound(k, hot_d, ratio, 60.0, warm_d)
                row["at_60s"]["bound"] = {"hot_pct": hb, "warm_pct": wb}
        if rs[0]["params"].get("zipf"):
            # pghot-bench --zipf: the share of hot accesses the pages on
            # the top tier served, and the best the same number of pages
            # could, at the end and averaged over the run's samples.
            def served(r):
                smp = [x for x in r["samples"] if "served_top" in x]
                mean = lambda k: (sum(x[k] for x in smp) / len(smp)
                                  if smp else None)
                return (smp[-1]["served_top"] if smp else None,
                        smp[-1]["served_best"] if smp else None,
                        mean("served_top"), mean("served_best"))
            got = [served(r) for r in rs]
            row["zipf"] = {
                "s": rs[0]["params"]["zipf"],
                "served_end": median([g[0] for g in got]),
                "best_end": median([g[1] for g in got]),
                "served_mean": median([g[2] for g in got]),
                "best_mean": median([g[3] for g in got]),
            }
        if rs[0]["cold_pages"]:
            row["warm_up_runs"] = [r["promoted_cold_pages"] / r["cold_pages"]
                                   for r in rs]
        # pghot-bench --blocks: the share of each set in whole 2 MiB
        # blocks, per run (None: placed by the allocator as it came).
        row["blocks_runs"] = [r.get("blocks_pct") for r in rs]
        lays = [r.get("layout") for r in rs]
        if rs[0]["cold_pages"] and all(lays):
            # How the warm set lay against the hot set, per run: the
            # share of its pages in 2 MiB regions that also held hot
            # pages, and of those promoted, the share from such regions.
            row["warm_mixed_runs"] = [l["cold_pages_mixed"] / r["cold_pages"]
                                      for l, r in zip(lays, rs)]
            row["warm_up_from_mixed_runs"] = [
                l["cold_top_mixed"] / (l["cold_top_mixed"] + l["cold_top_pure"])
                if l["cold_top_mixed"] + l["cold_top_pure"] else None
                for l in lays]
            # The warm pages in regions without hot pages: what a rule
            # that judges regions can tell apart; their share promoted.
            row["warm_up_pure_runs"] = [
                l["cold_top_pure"] / (r["cold_pages"] - l["cold_pages_mixed"])
                if r["cold_pages"] > l["cold_pages_mixed"] else None
                for l, r in zip(lays, rs)]
    return row


def fmt(v, spec=",.0f"):
    return "-" if v is None else format(v, spec)


def tables(scenario, rows):
    print(f"\n== {scenario}: median of the runs of each configuration\n")
    print("Table 1")
    print(f"{'config':13}{'runs':>6}{'time s':>8}{'ops/s':>13}{'kmig s':>8}"
          f"{'hot up':>9}{'s to 95%':>10}{'cold up':>9}{'migr/hot pg':>12}"
          f"{'wasted':>9}{'not kept':>9}{'hot down':>9}{'down<10s':>9}")
    for r in rows:
        name = shown(r)
        runs = f"{r['runs']}" + (f"+{r['failed_runs']}F" if r["failed_runs"] else "")
        if not r["runs"]:
            print(f"{name:13}{runs:>6}  all runs failed")
            continue
        hot = 100.0 * r["promoted_hot_pages"] / r["hot_pages"]
        cold = (f"{100.0 * r['promoted_cold_pages'] / r['cold_pages']:.1f}%"
                if r["cold_pages"] else "-")
        print(f"{name:13}{runs:>6}{r['elapsed_s']:>8.1f}"
              f"{r['ops_per_sec']:>13,.0f}{fmt(r['kmigrated_cpu_s'], '.2f'):>8}"
              f"{hot:>8.1f}%"
              f"{fmt(r['seconds_to_95pct'], '.1f'):>10}{cold:>9}"
              f"{r['migrations_per_hot_page']:>12.2f}"
              f"{fmt(r['wasted_migrations']):>9}"
              f"{fmt(r.get('promotions_not_kept')):>9}"
              f"{fmt(r['hot_pages_demoted']):>9}"
              f"{100.0 * r['demoted_within_10s']:>8.1f}%")
    print("  (F: failed runs, shown and not in the medians; kmig s: CPU seconds\n"
          "   of the kmigrated threads in the run; hot/cold up: on a top-tier\n"
          "   node at the end; s to 95%: the end of the first residency query\n"
          "   at 95% that the next one confirms; wasted = not kept + hot down;\n"
          "   not kept: promotions (pgpromote_success) that did not end as hot\n"
          "   pages on the top tier, which catches bounces shorter than a\n"
          "   sample; hot down: hot-set pages seen coming down (move_pages()\n"
          "   every 250 ms; demotions of other data, cold data exchanged for\n"
          "   hot, are not waste); down<10s: of the hot pages seen going up\n"
          "   at least 10 s before the end, the share seen down within 10 s;\n"
          "   oracle: every hot page reported every second, as no sampler\n"
          "   does; C4-t1: C4 at freq_threshold 1, C4 at the default 2)")
    goals(scenario, rows)
    sampled_table(rows)
    rows = [r for r in rows if r["runs"]]
    print("\nTable 2 (vmstat deltas)")
    print(f"{'':5}{'counter':30}" + "".join(f"{shown(r):>13}" for r in rows))
    for m, name in COUNTERS:
        vals = [r["vmstat"].get(name) for r in rows]
        if all(v is None for v in vals):
            continue
        print(f"{m:5}{name:30}" + "".join(f"{fmt(v):>13}" for v in vals))
    # Then whatever else moved: why ready pages stayed, ignored reports.
    known = {name for _, name in COUNTERS}
    others = sorted({n for r in rows for n, v in r["vmstat"].items()
                     if v and n not in known})
    for name in others:
        vals = [r["vmstat"].get(name) for r in rows]
        print(f"{'':5}{name:30}" + "".join(f"{fmt(v):>13}" for v in vals))


def goals(scenario, rows):
    """Where the hot set does not fit: every pghot row against legacy's."""
    if scenario not in WASTE_SCENARIOS:
        return
    legacy = next((r for r in rows if r["config"] == "C2" and r["runs"]), None)
    if not legacy:
        print("  goals: no C2 (legacy) row to compare with")
        return
    for r in rows:
        if r["config"] not in ("C4", "C4-t1"):
            continue
        if not r["runs"]:
            print(f"  goal {shown(r)}: all runs failed: NOT met")
            continue
        bar = legacy["wasted_migrations"] + r["hot_pages"] * WASTE_GOAL_PCT / 100
        soon = 100.0 * r["demoted_within_10s"]
        ok = r["wasted_migrations"] <= bar and soon <= DOWN_SOON_GOAL_PCT
        print(f"  goal {shown(r)}: wasted {r['wasted_migrations']:,.0f} <= "
              f"{bar:,.0f} (C2's + {WASTE_GOAL_PCT:.0f}% of the hot set), "
              f"down<10s {soon:.1f}% <= {DOWN_SOON_GOAL_PCT:.0f}%: "
              f"{'met' if ok else 'NOT met'}")


def row_layout(r):
    """The row's layout: the scenario's suffix (promotion-sparse), else
    blocks or the allocator's placement."""
    scen = r.get("scenario") or ""
    if "-" in scen:
        return scen.split("-", 1)[1]
    return "blocks" if all(r.get("blocks_runs") or [None]) else "alloc"


def layout_goal(r, seconds=None):
    """The sampled-layouts goals at freq_threshold 2 (S2, and the P2, L2
    and A2 rows judged alike), by layout and run length (the row's, or
    @seconds): (hot >=, warm <=, untouched <=, run seconds they are set
    for); None where the layout has none (skewed: the access share is
    printed on its own line) or the row is not at threshold 2. A row at
    threshold 3 (S3, run on its own: DEMO_SAMPLED_LAYOUT_CONFIGS) is
    judged by the 120-s goals of the mixed layouts alone: the setting
    for a horizon that long (see joint_floor())."""
    k = r["config"][1:]
    if k not in ("2", "3") or r.get("zipf"):
        return None	# skewed: judged by the access share (sampled_table())
    layout = row_layout(r)
    if seconds is None:
        seconds = r.get("elapsed_s") or 0
    if k == "3" and (layout not in ("interleave", "alloc") or seconds < 119):
        return None
    if layout in ("interleave", "alloc"):
        if seconds >= 119:
            return (95.0, 5.0, None, 120)
        return (90.0, 8.0, None, 60)
    if layout == "sparse":
        return (95.0, None, 1.0, 120)
    if layout == "blocks":
        return (95.0, 5.0, None, 60)
    return None


def joint_floor(r, hot_density, warm_density):
    """Whether one run can meet both of a layout's goals, the 60-s one and
    the end one: a page promoted is not taken back, so a rule that had
    the 60-s goal's hot share at 60 s had by then promoted at least the
    60-s floor of warm pages (warm_floor(), Neyman-Pearson on the counts
    at 60 s), and has at least as many at the end. A line saying so where
    that floor is above the end goal's warm share, else None."""
    end, g60 = layout_goal(r), layout_goal(r, 60)
    if (not end or not g60 or end[3] <= 60 or g60[3] != 60 or
            end[1] is None or hot_density is None or warm_density is None):
        return None
    fl = warm_floor(g60[0], hot_density * 60, warm_density * 60)
    if fl is None or fl <= end[1]:
        return None
    return (f"both goals in one run (Poisson model): {g60[0]:.0f}% hot by 60 s "
            f"costs at least {fl:.1f}% warm by 60 s, and promotions are not "
            f"taken back, so no rule that meets the 60-s goal ends with "
            f"<= {end[1]:.0f}% warm at {end[3]} s")


def layout_verdict(r, g, hot, warm, seconds=None):
    """met / NOT met for the goal @g after the row's run (or @seconds of
    it, untouched pages not judged); a goal set for a longer run than
    this one is met early or not judged."""
    want_hot, want_warm, want_untouched, secs = g
    untouched = (100.0 * r["promoted_filler_pages"] / r["filler_pages"]
                 if r.get("filler_pages") and seconds is None else None)
    if seconds is None:
        seconds = r.get("elapsed_s") or 0
    ok = (hot >= want_hot and
          (want_warm is None or warm is None or warm <= want_warm) and
          (want_untouched is None or untouched is None or
           untouched <= want_untouched))
    text = f"{want_hot:.0f}%/" + (f"{want_warm:.0f}%" if want_warm is not None
                                  else f"{want_untouched:.0f}% untouched")
    text += f" in {secs} s"
    if seconds + 1 < secs:
        return f"{text}: {'met early' if ok else 'not judged (shorter run)'}"
    return f"{text}: {'met' if ok else 'NOT met'}"


def sampled_table(rows):
    """The sampled rows (S: regions on, A: regions without the node's
    reference, P: each page on its own samples):
    density asked and delivered, and the goals (within the run, 60 s by
    default): threshold 2 by layout (layout_goal()), threshold 1 >= 99%
    with <= 10%."""
    rows = [r for r in rows if r.get("density_asked") is not None]
    if not rows:
        return
    # P and A rows are judged by the same goals, to compare.
    goals = {"1": (99.0, 10.0), "2": (95.0, 5.0)}
    print(f"\nsampled{'':6}{'asked':>7}{'got':>7}{'rate/s':>8}{'samples':>9}"
          f"{'hot up':>8}{'warm up':>8}{'bound':>14}  goal (hot >=, warm <=)")
    for r in rows:
        if not r["runs"]:
            print(f"{r['label']:13}{r['density_asked']:>7.4f}  all runs failed")
            continue
        sm = r.get("sampler", {})
        hot = 100.0 * r["promoted_hot_pages"] / r["hot_pages"]
        warm = (100.0 * r["promoted_cold_pages"] / r["cold_pages"]
                if r["cold_pages"] else None)
        g = goals.get(r["config"][1:])
        verdict = "-"
        lg = layout_goal(r)
        z = r.get("zipf")
        if z and z.get("served_end") and z.get("best_end"):
            # The skewed layout's goal: the top tier serves >= 95% of
            # what the best choice of as many pages would serve.
            share = z["served_end"] / z["best_end"]
            verdict = (f"served/best {100 * share:.1f}% >= 95%: "
                       + ("met" if share >= 0.95 else "NOT met"))
        elif lg:
            verdict = layout_verdict(r, lg, hot, warm)
        elif g:
            ok = hot >= g[0] and (warm is None or warm <= g[1])
            verdict = f"{g[0]:.0f}%/{g[1]:.0f}%: {'met' if ok else 'NOT met'}"
        b = r.get("per_page_bound") or {}
        bound = "-"
        if b.get("hot_pct") is not None:
            bound = f"{b['hot_pct']:.1f}/" + (
                "-" if b.get("warm_pct") is None else f"{b['warm_pct']:.1f}")
        print(f"{r['label']:13}{r['density_asked']:>7.4f}{fmt(r['density'], '.4f'):>7}"
              f"{sampler_rate(sm):>8}{fmt(sm.get('samples')):>9}"
              f"{hot:>7.1f}%{'-' if warm is None else f'{warm:.1f}%':>8}"
              f"{bound:>14}  {verdict}")
        z = r.get("zipf")
        if z and z.get("served_end") is not None:
            print(f"{'':13}  zipf s={z['s']}: the top tier served "
                  f"{100.0 * z['served_end']:.1f}% of hot accesses at the end "
                  f"(best for as many pages {100.0 * z['best_end']:.1f}%), "
                  f"{100.0 * z['served_mean']:.1f}% over the run "
                  f"(best {100.0 * z['best_mean']:.1f}%)")
        hd, wd = b.get("hot_density"), b.get("warm_density")
        if warm is not None and hd is not None and wd is not None:
            secs = r["elapsed_s"]
            fl = warm_floor(hot, hd * secs, wd * secs)
            print(f"{'':13}  floor (Poisson model): no rule judging each page by its own samples "
                  f"reaches {hot:.1f}% hot with less than {fl:.1f}% warm in "
                  f"{secs:.0f} s (regions can, where they are pure)")
        a = r.get("at_60s")
        if a:
            b60 = a["bound"]
            lg60 = layout_goal(r, 60)
            if lg60 and lg60[3] != 60:
                lg60 = None
            print(f"{'':13}  at 60 s: hot {a['hot_pct']:.1f}%"
                  + ("" if a["warm_pct"] is None else
                     f", warm {a['warm_pct']:.1f}%")
                  + f", bound {fmt(b60['hot_pct'], '.1f')}/"
                  + fmt(b60["warm_pct"], ".1f")
                  + (f"; {layout_verdict(r, lg60, a['hot_pct'], a['warm_pct'], 60)}"
                     if lg60 else ""))
            if a["warm_pct"] is not None and hd is not None and wd is not None:
                fl = warm_floor(a["hot_pct"], hd * 60, wd * 60)
                print(f"{'':13}  floor at 60 s (Poisson model): {a['hot_pct']:.1f}% hot costs "
                      f"at least {fl:.1f}% warm")
            joint = joint_floor(r, hd, wd)
            if joint:
                print(f"{'':13}  {joint}")
        ds = r.get("density_sets")
        if ds and ds.get("hot") is not None:
            warm_d = ("" if ds.get("warm") is None else
                      f", warm {ds['warm']:.4f} (1/{ds['hot'] / ds['warm']:.1f}"
                      " of hot)" if ds["warm"] else ", warm 0")
            print(f"{'':13}  per set: hot {ds['hot']:.4f}{warm_d} samples "
                  f"per page per s; {fmt(ds['other'])} on neither set")
        sb = r.get("seen_bound")
        if sb:
            k = int(r["config"][1:])
            def pair(key):
                v = sb.get(f"k{k}_{key}")
                if not v:
                    return "-"
                return fmt(v["hot"], ".1f") + (
                    "" if v["cold"] is None else "/" + fmt(v["cold"], ".1f"))
            print(f"{'':13}  the bound on the samples seen (k={k}, no Poisson "
                  f"model): {pair('end')} by the end, {pair('60s')} by 60 s")
        th = r.get("hot_thirds")
        if th:
            print(f"{'':13}  hot density by thirds of the run: "
                  + " / ".join(fmt(x, ".4f") for x in th))
        if r.get("filler_pages"):
            print(f"{'':13}  untouched pages between the hot ones promoted: "
                  f"{100.0 * r['promoted_filler_pages'] / r['filler_pages']:.1f}%")
    print("  (asked/got: samples per hot page per second; got: the feeder's\n"
          "   samples over the page-seconds the sets spent on the lower tier;\n"
          "   rate/s: the sampler's samples per second of user time on the\n"
          "   benchmark's CPU, node 2 or not, or Pn: every n-th node-2 access;\n"
          "   bound: hot %/warm % that a per-page rule promoting at the row's\n"
          "   threshold in samples reaches with Poisson samples at each set's\n"
          "   own density (per set; else got, warm at 1/ratio of it) over the\n"
          "   run's length; no rule fed only by these samples does much better\n"
          "   where hot and warm pages share regions; per set: the samples\n"
          "   logged on each set's PFNs over its page-seconds on the lower tier;\n"
          "   floor: the fewest warm pages any test of a page's sample count can\n"
          "   promote for the hot share reached, at the densities per set:\n"
          "   Neyman-Pearson, the count being all that Poisson samples tell)")
    blocks = [b for r in rows for b in r.get("blocks_runs") or [None]]
    if blocks and all(blocks):
        shares = [v for b in blocks for v in b.values() if v is not None]
        print(f"  (each set in 2 MiB blocks of its own, pghot-bench --blocks: "
              f"{min(shares):.1f}-{max(shares):.1f}% of a set's pages)")
    elif any(blocks):
        print("  (some runs with pghot-bench --blocks, some without)")
    else:
        print("  (sets placed by the allocator: the runs before decide how"
              " they share regions)")
    lay = [r for r in rows if r.get("warm_up_runs")]
    if not lay:
        return
    pct = lambda v: "-" if v is None else f"{100.0 * v:.1f}"
    print("\nwarm set per run: promoted %, in regions shared with hot pages %,"
          "\nof the promoted the % from such regions, of the warm pages in"
          "\nregions without hot pages the % promoted")
    for r in lay:
        none = [None] * r["runs"]
        runs = zip(r["warm_up_runs"], r.get("warm_mixed_runs") or none,
                   r.get("warm_up_from_mixed_runs") or none,
                   r.get("warm_up_pure_runs") or none)
        print(f"{r['label']:13}" + "   ".join(
            f"{pct(u)}/{pct(m)}/{pct(f)}/{pct(p)}" for u, m, f, p in runs))


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


# ---- latency: the emulated CXL box (tooling/emu/README) ----
LATENCY_ORDER = ["C0", "C1", "C2", "C4", "C4-t1", "D"]


def rate_series(r, window=1.0):
    """(t, ops/s over the window ending at t) from a run's samples."""
    pts = [(s["t"], s["ops"]) for s in r["samples"]]
    out, j = [], 0
    for i, (t, ops) in enumerate(pts):
        while j < i and pts[j][0] < t - window - 1e-9:
            j += 1
        if j < i and t - pts[j][0] >= window * 0.75:
            out.append((t, (ops - pts[j][1]) / (t - pts[j][0])))
    return out


def load_latency():
    """{config: [run or None for a failed run]}, feed summaries, reps."""
    paths = glob.glob(os.path.join(OUT, "raw", "latency-*"))
    keys = {}
    for p in paths:
        base = os.path.basename(p)
        stem = base[len("latency-"):].rsplit(".", 1)[0]
        config, rep = stem.rsplit("-", 1)
        keys.setdefault(config, set()).add(int(rep))
    reps = max((max(v) for v in keys.values()), default=0)
    runs, feeds = {}, {}
    for config in keys:
        for rep in range(1, reps + 1):
            run = feed = None
            try:
                with open(os.path.join(OUT, "raw", f"latency-{config}-{rep}.json")) as f:
                    run = json.load(f)
            except (OSError, ValueError):
                pass
            try:
                with open(os.path.join(OUT, "raw", f"latency-{config}-{rep}.feed")) as f:
                    feed = json.load(f)
            except (OSError, ValueError):
                pass
            runs.setdefault(config, []).append(run)
            feeds.setdefault(config, []).append(feed)
    return runs, feeds, reps


def damon_summary(scenario):
    """What DAMON's schemes applied in the D runs, from their own stats."""
    stats = []
    for path in sorted(glob.glob(os.path.join(OUT, "damon", f"{scenario}-D-*.json"))):
        try:
            with open(path) as f:
                stats.append(json.load(f))
        except (OSError, ValueError):
            print(f"D: {os.path.basename(path)} unreadable")
    if not stats:
        return
    for action in ("migrate_hot", "migrate_cold"):
        runs = [st[action] for st in stats if action in st]
        if not runs:
            continue
        mib = [r["sz_applied"] / 2**20 for r in runs]
        print(f"D {action}: applied {median(mib):.1f} MiB (runs: "
              f"{', '.join(f'{m:.1f}' for m in mib)}), tried "
              f"{median([r['sz_tried'] / 2**20 for r in runs]):.1f} MiB, "
              f"quota exceeded {median([r['qt_exceeds'] for r in runs]):.0f} "
              "times (DAMON's own stats; the hot promoted column is move_pages())")


def latency_report():
    runs, feeds, reps = load_latency()
    if not runs:
        return []
    c0 = median([r["ops_per_sec"] for r in runs.get("C0", []) if r])
    if not c0:
        print("\n== latency: no C0 run, no reference")
        return []
    order = [c for c in LATENCY_ORDER if c in runs] + sorted(
        c for c in runs if c not in LATENCY_ORDER)
    print(f"\n== latency (emulated CXL box), median of up to {reps} runs; "
          f"C0 = {c0:,.0f} ops/s")
    try:
        with open(os.path.join(OUT, "emu-calib.json")) as f:
            cal = json.load(f)
        print(f"slow memory: node {cal['slow_node']} {cal['slow_ns']:.0f} ns vs node "
              f"{cal['fast_node']} {cal['fast_ns']:.0f} ns per dependent load "
              f"(ratio {cal['ratio']:.2f}, wanted {cal['ratio_wanted']:.2f}; delay "
              f"{cal['delay_ns']} ns); stream {cal['slow_MBps']:.0f} vs "
              f"{cal['fast_MBps']:.0f} MB/s")
    except (OSError, ValueError, KeyError):
        pass
    try:
        with open(os.path.join(OUT, "latency-probe.json")) as f:
            for line in f:
                p = json.loads(line)
                print(f"probe: node {p['node']}: {p['latency_ns']:.0f} ns per load, "
                      f"stream {p['stream_MBps']:.0f} MB/s")
    except (OSError, ValueError, KeyError):
        pass
    print(f"\n{'config':12}{'density':>8}{'runs ok':>8}{'failed':>7}{'ops/s':>12}"
          f"{'avg/C0':>8}{'end/C0':>8}{'s to 90%':>9}{'hot promoted':>13}")
    rows, plots = [], []
    for config in order:
        ok = [r for r in runs[config] if r]
        failed = len(runs[config]) - len(ok)
        fd = [f for f in feeds[config] if f]
        row = {"scenario": "latency", "config": config.split("-d")[0],
               "label": config, "runs": len(ok), "failed_runs": failed,
               "commit": os.environ.get("DEMO_COMMIT")}
        if "-d" in config:
            row["density_asked"] = float(config.split("-d")[1])
        if not ok:
            print(f"{config:12}{'':>8}{0:>8}{failed:>7}  all runs failed")
            rows.append(row)
            continue
        hot = ok[0]["hot_pages"]
        avg = [r["ops_per_sec"] / c0 for r in ok]
        ends, t90s = [], []
        for r in ok:
            ser = rate_series(r)
            tail = [v for t, v in ser if t >= r["elapsed_s"] - 5]
            ends.append(sum(tail) / len(tail) / c0 if tail else None)
            t90s.append(next((t for t, v in ser if v >= 0.9 * c0), None))
        # Samples per hot page-second on the lower tier (the hot set's own
        # where the feeder logged its PFNs), as in the sampled scenario.
        dens = []
        for rep_, (r, f) in enumerate(zip(runs[config], feeds[config]), 1):
            if not r or not f:
                continue
            ds = set_densities(os.path.join(
                OUT, "raw", f"latency-{config}-{rep_}"), r)
            d = ds["hot"] if ds and ds.get("hot") else feed_density(f, r)
            if d is not None:
                dens.append(d)
        row.update({
            "ops_per_sec": median([r["ops_per_sec"] for r in ok]),
            "avg_frac_c0": median(avg), "end_frac_c0": median(ends),
            # None (never) counts as the longest.
            "seconds_to_90pct_c0": sorted(
                t90s, key=lambda t: float("inf") if t is None else t)[len(t90s) // 2],
            "promoted_hot_pages": median([r["promoted_hot_pages"] for r in ok]),
            "hot_pages": hot,
            "density": median(dens) if dens else None,
        })
        fd = [f for f in fd if f.get("plugin_start") and f.get("plugin_end")]
        if fd:
            secs = [f["seconds"] for f in fd]
            per = [max((y["samples"] - x["samples"]) / f["seconds"]
                       for x, y in zip(f["plugin_start"]["vcpus"],
                                       f["plugin_end"]["vcpus"]))
                   for f in fd if f["plugin_start"] and f["plugin_end"]]
            row["sampler"] = {
                "period": fd[0]["period"],
                "rate": fd[0].get("rate"),
                "samples_per_s_busiest_vcpu": median(per) if per else None,
                "injected": median([f["injected"] for f in fd]),
                "rejected": median([f["rejected"] for f in fd]),
                "dropped_ring": median([sum(y["dropped_ring"] - x["dropped_ring"]
                                        for x, y in zip(f["plugin_start"]["vcpus"],
                                                        f["plugin_end"]["vcpus"]))
                                        for f in fd if f["plugin_end"]]),
                "dropped_link": median([f["plugin_end"]["sampler"]["dropped_link"]
                                        - f["plugin_start"]["sampler"]["dropped_link"]
                                        for f in fd if f["plugin_end"]]),
                "delivery_avg_ms": median([f["plugin_end"]["sampler"]["delay_avg_ms"]
                                           for f in fd if f["plugin_end"]]),
                "delivery_max_ms": max(f["plugin_end"]["sampler"]["delay_max_ms"]
                                       for f in fd if f["plugin_end"]),
                "seconds": median(secs),
            }
        t90 = row["seconds_to_90pct_c0"]
        print(f"{config:12}{fmt(row['density'], '.3f'):>8}{len(ok):>8}{failed:>7}"
              f"{row['ops_per_sec']:>12,.0f}{row['avg_frac_c0']:>8.2f}"
              f"{fmt(row['end_frac_c0'], '.2f'):>8}{fmt(t90, '.1f'):>9}"
              f"{100.0 * row['promoted_hot_pages'] / hot:>12.1f}%")
        rows.append(row)
        # The run with the median average stands for the config.
        plots.append((config, sorted(ok, key=lambda x: x["ops_per_sec"])[len(ok) // 2]))
    print("(avg/C0: the run's ops/s over C0's; end/C0: the last 5 s; s to 90%: "
          "first 1-s window at 0.9 of C0, '-' never; density: samples per hot\n"
          " page-second on the lower tier delivered, the asked one in the label;\n"
          " D: DAMON-based tiering, tooling/guest-damon.sh, NUMA balancing off)")
    damon_summary("latency")
    # C0 is the ceiling: nothing runs faster than all of its memory on
    # DRAM. Its own run-to-run spread is the noise a row may exceed it by.
    c0_runs = [r["ops_per_sec"] for r in runs.get("C0", []) if r]
    c0_ends = []
    for r in runs.get("C0", []):
        tail = [v for t, v in rate_series(r) if t >= r["elapsed_s"] - 5] if r else []
        if tail:
            c0_ends.append(sum(tail) / len(tail) / c0)
    noise = ((max(c0_runs) - min(c0_runs)) / c0 if len(c0_runs) > 1 else None)
    over = [r["label"] for r in rows if r.get("avg_frac_c0") is not None and
            r["label"] != "C0" and noise is not None and
            (r["avg_frac_c0"] > 1 + noise or
             (r.get("end_frac_c0") or 0) > max(c0_ends + [1.0]) + noise)]
    tick = None
    try:
        with open(os.path.join(OUT, "latency-tick-hz")) as f:
            tick = f.read().strip()
    except OSError:
        pass
    print(f"C0 ceiling: C0 runs {', '.join(f'{v:,.0f}' for v in c0_runs)} ops/s "
          f"(spread {fmt(None if noise is None else 100 * noise, '.1f')}% of the "
          f"median); " + ("not judged (one C0 run)" if noise is None else
                          "holds" if not over else
                          f"BROKEN by {', '.join(over)}")
          + f"; emulated-TLB ticks {tick or '-'} Hz")
    samp = [r for r in rows if r.get("sampler")]
    if samp:
        print(f"\nsampler{'':5}{'rate/s':>8}{'samples/s':>10}{'injected':>10}"
              f"{'rejected':>9}{'drop ring':>10}{'drop link':>10}{'delay avg':>10}{'max ms':>8}")
        for r in samp:
            sm = r["sampler"]
            print(f"{r['label']:12}{sampler_rate(sm):>8}"
                  f"{fmt(sm['samples_per_s_busiest_vcpu']):>10}{fmt(sm['injected']):>10}"
                  f"{fmt(sm['rejected']):>9}{fmt(sm['dropped_ring']):>10}"
                  f"{fmt(sm['dropped_link']):>10}{fmt(sm['delivery_avg_ms'], '.2f'):>10}"
                  f"{fmt(sm['delivery_max_ms'], '.1f'):>8}")
        print("(samples/s: of the benchmark's vCPU; delay: plugin to pghot_reported, ms)")
    # Throughput relative to C0 over time.
    series = []
    for config, r in plots:
        dat = os.path.join(OUT, f"latency-{config}.dat")
        with open(dat, "w") as f:
            for t, v in rate_series(r):
                f.write(f"{t} {v / c0}\n")
        series.append((config, dat))
    svg = os.path.join(OUT, "latency.svg")
    cmds = [
        "set terminal svg size 900,500 dynamic", f"set output '{svg}'",
        "set title 'pghot demo, latency (emulated CXL box): ops/s relative to C0 "
        "(hot set on node 0)'",
        "set xlabel 'seconds'", "set ylabel 'ops/s / C0'", "set key outside right",
        "set yrange [0:1.3]",
        "plot " + ", ".join(f"'{d}' using 1:2 with lines lw 2 lc {i + 1} title '{c}'"
                            for i, (c, d) in enumerate(series)),
    ]
    try:
        subprocess.run(["gnuplot"], input="\n".join(cmds), text=True, check=True)
        print(f"\nplot: {svg}")
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"demo: no plot for latency: {e}", file=sys.stderr)
    return rows


def config_key(kv):
    """C rows first in their order, then S1/S2 by density."""
    base, _, dens = kv[0].partition("-d")
    return (CONFIG_ORDER.index(base) if base in CONFIG_ORDER else 99,
            float(dens) if dens else 0.0)


def main():
    runs = load()
    if not runs and not glob.glob(os.path.join(OUT, "raw", "latency-*")):
        sys.exit("demo: no results in " + os.path.join(OUT, "raw"))
    results = []
    order = SCENARIO_ORDER + sorted(set(runs) - set(SCENARIO_ORDER))
    for scenario in order:
        if scenario not in runs:
            continue
        configs = sorted(runs[scenario].items(), key=config_key)
        rows = [summarise(scenario, c, rs, failed)
                for c, (rs, failed) in configs]
        tables(scenario, rows)
        plot(scenario, [(c, rs) for c, (rs, _) in configs])
        results.extend(rows)
    results.extend(latency_report())
    path = os.path.join(OUT, "results.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print(f"results: {path}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--density":
        # guest-demo.sh's calibration: demo-report.py --density FEED RUN
        # The hot set's own density where the feeder logged its samples
        # (FEED's stem .pfnlog and RUN's stem .sets).
        with open(sys.argv[2]) as f_, open(sys.argv[3]) as r_:
            run_ = json.load(r_)
            d = feed_density(json.load(f_), run_)
        ds = set_densities(os.path.splitext(sys.argv[2])[0], run_)
        if ds and ds.get("hot"):
            d = ds["hot"]
        if not d:
            sys.exit("demo: no exposure to the lower tier in " + sys.argv[3])
        print(d)
    else:
        main()
