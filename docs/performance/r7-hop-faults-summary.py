#!/usr/bin/env python3
"""Issue 27's hop change under faults, before (b7: main 3cb73b9) and after (a7): the files of
r4-recovery-run.sh with APPS="b7=... a7=..." (see /docs/PERFORMANCE.md, round 7). Per transport
and phase of `bench faults`: orders/s of each run, before and after, and the after/before ratio of
the medians; then the RabbitMQ demo with its connections cut twice (wall seconds of the demo).
Other builds' labels as arguments: r7-hop-faults-summary.py b8 a8 (session 7's trace column)."""
import glob, json, os, statistics as st, sys
B, A = sys.argv[1:3] if len(sys.argv) > 2 else ('b7', 'a7')
here = os.path.dirname(os.path.abspath(__file__))
def load(f):
    try:
        return json.load(open(f))
    except Exception:
        return None
def runs(run, label):
    return [d for d in map(load, sorted(glob.glob(os.path.join(here, f'r4-recovery-{run}-{label}-*.json')))) if d]
print('| transport | phase | before orders/s | after orders/s | after / before (medians) | duplicate effects b / a |')
print('| --- | --- | --- | --- | --: | --- |')
for t in ['table', 'rabbitmq', 'kafka']:
    b, a = runs(f'faults-{t}', B), runs(f'faults-{t}', A)
    if not b and not a:
        continue
    phases = [p['phase'] for p in (b or a)[0]['phases']]
    for ph in phases:
        eb = [p['eps'] for d in b for p in d['phases'] if p['phase'] == ph]
        ea = [p['eps'] for d in a for p in d['phases'] if p['phase'] == ph]
        r = round(st.median(ea) / st.median(eb), 3) if eb and ea else '—'
        db = sum(p.get('duplicate_effects', 0) for d in b for p in d['phases'] if p['phase'] == ph)
        da = sum(p.get('duplicate_effects', 0) for d in a for p in d['phases'] if p['phase'] == ph)
        print(f"| {t} | {ph} | {' / '.join(map(str, eb))} | {' / '.join(map(str, ea))} | **{r}** | {db} / {da} |")
print()
print('| RabbitMQ demo, 3 000 orders, crash 0.1, connections cut at 3 s and 8 s | before | after |')
print('| --- | --- | --- |')
def demo(label):
    ds = runs('rabbit-cuts', label)
    return ' / '.join(f"{d.get('seconds', d.get('elapsed_seconds', '?'))} s ({'ok' if d.get('ok') else 'NOT ok'}, {d.get('duplicates', d.get('duplicate_effects', '?'))} dup)" for d in ds) or '—'
print(f"| demo seconds | {demo(B)} | {demo(A)} |")
