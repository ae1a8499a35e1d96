# Medians per phase of label=glob groups of probed runs (wake-r7-probe-*.patch), e.g.
#   python3 wake-r7-cmp.py "b=/tmp/runs/q/b/*.err" "a=/tmp/runs/q/a/*.err"
import sys, glob, statistics as st
import os, importlib
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
_p = importlib.import_module("wake-r7-parse")
parse, costs = _p.parse, _p.costs
from collections import defaultdict
keys = ["eps","relay_sent_batches","relay_batch_size","relay_zero_batches","relay_contended_waits","relay_resignal","relay_ms_per_batch","relay_busy_s",
        "bench_claims","bench_empty_claims","bench_batch","bench-notify_claims","bench-notify_empty_claims","bench-notify_batch","tq_signals","pg_commits",
        "jvm_us_per_order","db_us_per_order","wal_per_order"]
groups = []
for arg in sys.argv[1:]:
    label, pat = arg.split("=", 1)
    agg = defaultdict(lambda: defaultdict(list))
    files = sorted(glob.glob(pat))
    for f in files:
        ph = parse(f); co = costs(f)
        for i, (name, r) in enumerate(ph):
            if i < len(co): r = dict(r, **co[i])
            for k, v in r.items():
                if v is not None and not isinstance(v, str): agg[name][k].append(v)
    groups.append((label, agg, len(files)))
phases = [p for p in groups[0][1] if p != "warmup"]
for ph in phases:
    print("== " + ph + "   " + "  ".join(f"{l}:n={n}" for l, _, n in groups))
    print("  " + " " * 26 + "".join(f"{l:>12s}" for l, _, _ in groups))
    for k in keys:
        vals = [st.median(a[ph][k]) if a[ph].get(k) else float('nan') for _, a, _ in groups]
        print(f"  {k:26s}" + "".join(f"{v:12.3f}" if v < 100 else f"{v:12.1f}" for v in vals))
    print("  eps all: " + " | ".join(f"{l}: " + " ".join(str(round(x)) for x in a[ph]['eps']) for l, a, _ in groups))
