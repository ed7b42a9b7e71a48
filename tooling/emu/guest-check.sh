#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the test VM booted by tooling/emu/check.sh (VM_SLOWMEM=1,
# VM_SAMPLER=1; vm.sh has calibrated the slow memory already). Checks that
# the plugin slows exactly node 2's memory by the configured ratio (+-20%)
# and that its samples reach pghot (pghot_reported_hwhints). Ends with
# "emu: N passed, N failed".
set -uo pipefail
: "${PGHOT_EMU:?not booted with VM_SLOWMEM/VM_SAMPLER}" "${PGHOT_EMU_STATS:?}"
VMDIR=$(dirname "$PGHOT_EMU_STATS")
D=/sys/kernel/debug/pghot
pass=0 fail=0
ok() { echo "emu: ok: $*"; pass=$((pass + 1)); }
nok() { echo "emu: FAIL: $*"; fail=$((fail + 1)); }
vmstat() { awk -v n="$1" '$1 == n { print $2 }' /proc/vmstat; }

# 1. The plugin's slow ranges are node 2's memory as the guest sees it:
# boot memory and the hot-plugged DIMM from SRAT, and no other node's.
if dmesg | python3 -c '
import json, re, sys
st = json.load(open(sys.argv[1]))
slow = [tuple(r) for r in st["slow_ranges"]]
srat = [(int(n), int(a, 16), int(b, 16) + 1) for n, a, b in re.findall(
    r"SRAT: Node (\d+) PXM \d+ \[mem 0x([0-9a-f]+)-0x([0-9a-f]+)\]", sys.stdin.read())]
bad = 0
for n, a, b in srat:
    covered = any(s <= a and b <= e for s, e in slow)
    touches = any(s < b and a < e for s, e in slow)
    print(f"emu:   SRAT node {n} [{a:#x}-{b:#x}) slow={covered}")
    if (n == 2) != covered or (n != 2 and touches):
        bad += 1
if not any(n == 2 for n, _, _ in srat):
    bad += 1
sys.exit(bad)' "$PGHOT_EMU_STATS"; then
	ok "slow ranges = node 2 (boot memory and DIMM) per SRAT"
else
	nok "slow ranges do not match node 2 in SRAT"
fi

# 2. The latency ratio, measured again after the calibration (vm.sh wrote
# emu-calib.json at the start of this command).
if python3 - "$VMDIR/emu-calib.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
r = c["ratio"] / c["ratio_wanted"]
print(f"emu:   node {c['slow_node']} {c['slow_ns']:.0f} ns, node {c['fast_node']} "
      f"{c['fast_ns']:.0f} ns (before the delay: {c['fast_ns_calib']:.0f} ns), "
      f"ratio {c['ratio']:.2f} for {c['ratio_wanted']:.2f}, delay {c['delay_ns']} ns; "
      f"stream {c['slow_MBps']:.0f} vs {c['fast_MBps']:.0f} MB/s")
sys.exit(0 if 0.8 <= r <= 1.2 and c["delay_ns"] > 0 else 1)
PY
then ok "node 2 / node 0 latency within 20% of the configured ratio"
else nok "latency ratio off by more than 20%"
fi
# A second, independent measurement with the same delay.
f=$("$PGHOT_EMU" probe -n 0 -m 32 -s 1) && s=$("$PGHOT_EMU" probe -n 2 -m 32 -s 1)
if python3 - "$VMDIR/emu-calib.json" "$f" "$s" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
f, s = json.loads(sys.argv[2]), json.loads(sys.argv[3])
r = s["latency_ns"] / f["latency_ns"] / c["ratio_wanted"]
print(f"emu:   again: node 2 {s['latency_ns']:.0f} ns, node 0 {f['latency_ns']:.0f} ns, "
      f"ratio {s['latency_ns'] / f['latency_ns']:.2f}")
sys.exit(0 if 0.8 <= r <= 1.2 else 1)
PY
then ok "ratio holds on a second measurement"
else nok "ratio off by more than 20% on a second measurement"
fi

# 3. Samples of a user-space workload on node 2 reach pghot.
echo 0x2 > $D/enabled_sources
before=$(vmstat pghot_reported_hwhints)
"$PGHOT_EMU" feed --period 2000 --slow-only --json "$VMDIR/emu-check-feed.json" &
feed=$!
sleep 0.5
"$PGHOT_EMU" probe -n 2 -m 16 -s 2 >/dev/null
kill $feed; wait $feed
after=$(vmstat pghot_reported_hwhints)
echo 0x1 > $D/enabled_sources
if python3 - "$VMDIR/emu-check-feed.json" "$((after - before))" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
rep = int(sys.argv[2])
a, b = f["plugin_start"], f["plugin_end"]
secs = f["seconds"]
per = [(y["samples"] - x["samples"]) / secs for x, y in zip(a["vcpus"], b["vcpus"])]
ring = sum(y["dropped_ring"] - x["dropped_ring"] for x, y in zip(a["vcpus"], b["vcpus"]))
s0, s1 = a["sampler"], b["sampler"]
print(f"emu:   {f['samples']} samples in {secs:.1f} s, per vCPU/s "
      + " ".join(f"{p:.0f}" for p in per)
      + f"; injected {f['injected']}, rejected {f['rejected']}, "
      f"reported_hwhints +{rep}; dropped ring {ring}, link "
      f"{s1['dropped_link'] - s0['dropped_link']}; delivery delay avg "
      f"{s1['delay_avg_ms']:.2f} ms, max {s1['delay_max_ms']:.2f} ms")
ok = f["injected"] > 0 and rep >= f["injected"] and f["rejected"] == 0 \
    and f["bad_records"] == 0 and s1["acked"] > s0["acked"]
sys.exit(0 if ok else 1)
PY
then ok "sampled accesses reach pghot_reported_hwhints"
else nok "samples did not reach pghot"
fi
echo "emu: $pass passed, $fail failed"
[ $fail = 0 ]
