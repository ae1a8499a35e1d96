# Parses the PROBE/COST lines of a probed "bench faults" run (see wake-r7-probe-*.patch); used by wake-r7-cmp.py.
import json, re, sys, glob, statistics as st
from collections import defaultdict
# per file: phases in order; compute per-order counts
def parse(path):
    out = []
    prev_pg = None
    lines = open(path).read().splitlines()
    rates = [ (m.group(1), float(m.group(2))) for l in lines for m in [re.search(r"\d\d:\d\d:\d\d\.\d+ (\S+): (\d+) orders/s", l)] if m]
    i = 0
    for l in lines:
        m = re.match(r"\s+(\S+) (\S+) n=(\d+) PROBE (\{.*\}) PG (\{.*\})", l)
        if not m: continue
        fault, rate, n = m.group(1), float(m.group(2)), int(m.group(3))
        p = json.loads(m.group(4)); pg = json.loads(m.group(5))
        d = {k: pg[k] - prev_pg[k] for k in pg} if prev_pg else None
        prev_pg = pg
        name = "warmup" if i == 0 else (fault if fault != "crash" else f"crash_{rate}")
        e = rates[i][1] if i < len(rates) else None
        i += 1
        g = lambda k: p.get(k, 0)
        r = {}
        r["eps"] = e
        r["relay_batches"] = g("relay.batches")/n
        r["relay_sent_batches"] = g("relay.sent_batches")/n
        r["relay_batch_size"] = g("relay.sent_rows")/max(1,g("relay.sent_batches"))
        r["relay_zero_batches"] = g("relay.zero_batches")/n
        r["relay_contended_waits"] = g("relay.contended_waits")/n
        r["relay_resignal"] = g("relay.resignal")/n
        r["relay_due_per_batch"] = g("relay.due_sum")/max(1,g("relay.batches"))
        r["relay_locked_per_batch"] = g("relay.locked_sum")/max(1,g("relay.batches"))
        r["relay_ms_per_batch"] = g("relay.run_ns")/1e6/max(1,g("relay.batches"))
        r["relay_busy_s"] = g("relay.run_ns")/1e9
        shares = sorted([v for k,v in p.items() if k.startswith("relay.batches.") and v>0], reverse=True)
        r["relay_split"] = "/".join(map(str,shares))
        for grp in ("bench","bench-notify"):
            c = g("tq.claims."+grp); ec = g("tq.empty_claims."+grp); rows = g("tq.claimed_rows."+grp)
            r[grp+"_claims"] = c/n
            r[grp+"_empty_claims"] = ec/n
            r[grp+"_batch"] = rows/max(1,c-ec)
            r[grp+"_lingers"] = g("tq.lingers."+grp)/n
        r["tq_signals"] = g("tq.signals")/n
        r["outbox_signals"] = g("outbox.commit_signals")/n
        if d: r["pg_commits"] = d["xact_commit"]/n; r["pg_rollbacks"]= d["xact_rollback"]/n
        out.append((name, r))
    return out
if __name__ == "__main__":
    groups = {}
    for label, pat in [("before", sys.argv[1]), ("after", sys.argv[2])]:
        agg = defaultdict(lambda: defaultdict(list))
        for f in sorted(glob.glob(pat)):
            for name, r in parse(f):
                for k, v in r.items():
                    agg[name][k].append(v)
        groups[label] = agg
    phases = [p for p in groups["before"] if p != "warmup"]
    for ph in phases:
        print(f"== {ph}  (medians; before n={len(groups['before'][ph]['eps'])}, after n={len(groups['after'][ph]['eps'])})")
        for k in groups["before"][ph]:
            b = groups["before"][ph][k]; a = groups["after"][ph].get(k, [])
            if k == "relay_split":
                print(f"  {k:26s} {' '.join(b):40s} | {' '.join(a)}"); continue
            if k == "eps": 
                print(f"  {k:26s} {st.median(b):9.1f} {str(b):40s} | {st.median(a):9.1f} {a}"); continue
            bm, am = st.median(b), st.median(a) if a else float('nan')
            print(f"  {k:26s} {bm:9.3f} | {am:9.3f}   ratio {am/bm if bm else float('nan'):.2f}")

def costs(path):
    res = []
    for l in open(path):
        m = re.match(r"\s+COST n=(\d+) (\{.*\})", l)
        if m:
            n = int(m.group(1)); c = json.loads(m.group(2))
            res.append({"jvm_us_per_order": c["jvm_cpu_ns"]/n/1000, "db_us_per_order": c["db_cpu_ns"]/n/1000, "wal_per_order": c["wal"]/n})
    return res
