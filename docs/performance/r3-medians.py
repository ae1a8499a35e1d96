#!/usr/bin/env python3
# Round 3: the table of PERFORMANCE.md from the r3-*.json files, medians per transport.
# Usage: r3-medians.py [docs/performance]
import json, glob, statistics, sys, os
d = sys.argv[1] if len(sys.argv) > 1 else 'docs/performance'
cols = ['e2e_eps','ceiling_p_eps','ceiling_c_eps','ratio_c','ratio_p','p50_ms','p99_ms','paced_rate_eps','paced_p50_ms','paced_p99_ms','ceiling_c_p99_ms','duplicate_effects']
hdr = ['run','e2e ord/s','ceiling P','ceiling C','e2e/C','e2e/P','p50 / p99 ms','paced rate','paced p50 / p99 ms','C p99 ms','dup']
print('| ' + ' | '.join(hdr) + ' |')
print('| --- |' + ' --: |' * (len(hdr)-1))
def fmt(v, k):
    if k.startswith('ratio'): return f"{v*100:.0f} %"
    if k.endswith('_eps'): return f"{v:,.0f}".replace(',', ' ')
    return f"{v:g}"
for t in ['table','rabbitmq','kafka']:
    files = sorted(glob.glob(f'{d}/r3-{t}-[0-9].json'))
    runs = []
    for f in files:
        try: runs.append((os.path.basename(f)[:-5], json.load(open(f))))
        except Exception as e: print(f'<!-- {f}: {e} -->')
    for name, j in runs:
        print(f"| {name} | {fmt(j['e2e_eps'],'e2e_eps')} | {fmt(j['ceiling_p_eps'],'ceiling_p_eps')} | {fmt(j['ceiling_c_eps'],'ceiling_c_eps')} | {fmt(j['ratio_c'],'ratio_c')} | {fmt(j['ratio_p'],'ratio_p')} | {j['p50_ms']:.0f} / {j['p99_ms']:.0f} | {j['paced_rate_eps']:.0f} | {j['paced_p50_ms']:.1f} / {j['paced_p99_ms']:.1f} | {j['ceiling_c_p99_ms']:.0f} | {j['duplicate_effects']} |")
    if runs:
        m = {k: statistics.median([j[k] for _, j in runs]) for k in cols}
        print(f"| **{t} median** | **{fmt(m['e2e_eps'],'e2e_eps')}** | {fmt(m['ceiling_p_eps'],'ceiling_p_eps')} | {fmt(m['ceiling_c_eps'],'ceiling_c_eps')} | **{fmt(m['ratio_c'],'ratio_c')}** | **{fmt(m['ratio_p'],'ratio_p')}** | {m['p50_ms']:.0f} / {m['p99_ms']:.0f} | {m['paced_rate_eps']:.0f} | {m['paced_p50_ms']:.1f} / **{m['paced_p99_ms']:.1f}** | {m['ceiling_c_p99_ms']:.0f} | |")
for f in sorted(glob.glob(f'{d}/r3-processes-*.json')):
    print(os.path.basename(f), open(f).read().strip())
