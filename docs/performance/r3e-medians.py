#!/usr/bin/env python3
"""Round 3 engine work: the r3e-*.json runs as Markdown rows, and the medians per label and transport."""
import glob, json, os, re, statistics, sys

here = os.path.dirname(os.path.abspath(__file__))
runs = {}
for f in sorted(glob.glob(os.path.join(here, "r3e-*.json"))):
    m = re.match(r"r3e-(\w+)-(table|rabbitmq)-(\d+)\.json", os.path.basename(f))
    if not m:
        continue
    try:
        d = json.load(open(f))
    except ValueError:
        print(f"{os.path.basename(f)}: no JSON (failed run)", file=sys.stderr)
        continue
    runs.setdefault((m.group(1), m.group(2)), []).append((int(m.group(3)), d))

cols = ["e2e_eps", "ceiling_p_eps", "ceiling_c_eps", "ratio_c", "ratio_p", "p99_ms", "paced_rate_eps",
        "paced_p50_ms", "paced_p99_ms", "duplicate_effects"]
print("| run | e2e ord/s | ceiling P | ceiling C | e2e/C | e2e/P | p99 ms | paced rate | paced p50 / p99 ms | dup | load |")
print("| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |")
for (label, t), rs in sorted(runs.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    for n, d in sorted(rs, key=lambda r: r[0]):
        print(f"| {label}-{t}-{n} | {d['e2e_eps']:.0f} | {d['ceiling_p_eps']:.0f} | {d['ceiling_c_eps']:.0f} | "
              f"{d['ratio_c']:.2f} | {d['ratio_p']:.2f} | {d['p99_ms']:.0f} | {d['paced_rate_eps']:.0f} | "
              f"{d['paced_p50_ms']:.1f} / {d['paced_p99_ms']:.1f} | {d['duplicate_effects']} | "
              f"{d['machine']['load_average']:.1f} |")
    med = {c: statistics.median(d[c] for _, d in rs) for c in cols}
    print(f"| **{label} {t} median ({len(rs)})** | **{med['e2e_eps']:.0f}** | {med['ceiling_p_eps']:.0f} | "
          f"{med['ceiling_c_eps']:.0f} | **{med['ratio_c']:.2f}** | **{med['ratio_p']:.2f}** | {med['p99_ms']:.0f} | "
          f"{med['paced_rate_eps']:.0f} | {med['paced_p50_ms']:.1f} / **{med['paced_p99_ms']:.1f}** | | |")
