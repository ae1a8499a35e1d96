#!/usr/bin/env python3
"""The table of medians of docs/PERFORMANCE.md from the JSON files of `once bench e2e --json` runs
named <prefix>-<transport>-<n>.json in a folder (what bench/e2e-service.sh writes).
Usage: bench/e2e-table.py [folder] [prefix]   (default /tmp/once-bench/e2e-service, e2e)"""
import json,glob,statistics,sys,os
d=sys.argv[1] if len(sys.argv)>1 else '/tmp/once-bench/e2e-service'
prefix=sys.argv[2] if len(sys.argv)>2 else 'e2e'
rows=[('e2e_eps','Once end to end, orders/s'),('ceiling_c_eps','ceiling C, orders/s'),('ratio_c','Once / C'),
('ceiling_p_eps','ceiling P (raw JDBC producers), orders/s'),('once_producers_eps','Once producers alone, orders/s'),('producer_path_ratio','producer_path_ratio (Once / raw)'),
('service_eps','example service (own JVM, its pool), orders/s'),('service_ratio_e2e','service / e2e'),('service_ratio_c','service / C'),
('paced_rate_eps','paced rate, orders/s'),('paced_p50_ms','Once paced p50, ms'),('paced_p99_ms','Once paced p99, ms'),
('ceiling_c_paced_p50_ms','ceiling C paced p50, ms'),('ceiling_c_paced_p99_ms','ceiling C paced p99, ms'),
('paced_p50_ratio','p50 Once / C'),('paced_p99_ratio','p99 Once / C'),
('service_paced_p50_ms','service paced p50, ms'),('service_paced_p99_ms','service paced p99, ms'),
('paced_commit_to_confirmed_p50_ms','Once: commit→confirmed p50, ms'),('paced_confirmed_to_received_p50_ms','Once: confirmed→received p50, ms'),('paced_received_to_effect_p50_ms','Once: received→effect p50, ms'),
('ceiling_c_paced_commit_to_confirmed_p50_ms','C: commit→confirmed p50, ms'),('ceiling_c_paced_confirmed_to_received_p50_ms','C: confirmed→received p50, ms'),('ceiling_c_paced_received_to_effect_p50_ms','C: received→effect p50, ms'),
('service_paced_rate_eps','service paced rate, orders/s'),
('e2e_jit_ms','JIT compiling during Once\'s run, ms'),('service_jit_ms','JIT compiling during the service\'s run, ms'),
('paced_warmed','Once\'s paced run warmed by one before it'),('ceiling_c_paced_warmed','C\'s paced run warmed'),('service_paced_warmed','the service\'s paced run warmed'),
('paced_jit_wait_s','before Once\'s paced run: wait for the JIT, s'),('ceiling_c_paced_jit_wait_s','before C\'s paced run: wait for the JIT, s'),('service_paced_jit_wait_s','before the service\'s paced run: wait for the JIT, s'),
('paced_jit_ms','JIT compiling during Once\'s paced run, ms'),('ceiling_c_paced_jit_ms','JIT compiling during C\'s paced run, ms'),('service_paced_jit_ms','JIT compiling during the service\'s paced run, ms'),
('warmup_rounds','bench warm-up rounds'),('warmup_s','bench warm-up, s'),('service_warmup_rounds','service warm-up rounds'),('service_warmup_s','service warm-up, s'),
('warmup_jit_quiet','bench warm-up ended JIT-quiet'),('service_warmup_jit_quiet','service warm-up ended JIT-quiet'),
('warmup_jit_catch_up_s','bench warm-up: pauses for the JIT, s'),('service_warmup_jit_catch_up_s','service warm-up: pauses for the JIT, s'),
('duplicate_effects','duplicate effects (Once)'),('ceiling_c_duplicate_effects','duplicate effects (C)'),('service_duplicate_effects','duplicate effects (service)')]
runs={}
for t in ['table','rabbitmq','kafka']:
    runs[t]=[]
    for f in sorted(glob.glob(f'{d}/{prefix}-{t}-*.json')):
        try:
            runs[t].append(json.load(open(f)))
        except Exception as e:
            pass
print('| figure | ' + ' | '.join(f'{t} ({len(runs[t])} run{"s" if len(runs[t])!=1 else ""})' for t in runs) + ' |')
print('| --- | ' + ' | '.join('--:' for t in runs) + ' |')
for k,label in rows:
    cells=[]
    for t in runs:
        v=[r[k] for r in runs[t] if k in r]
        if not v: cells.append('—'); continue
        if len(v)==1: cells.append(f'{v[0]}')
        else:
            med=statistics.median(v)
            cells.append(f'**{round(med,3)}** ({" / ".join(str(x) for x in v)})')
    print(f'| {label} | ' + ' | '.join(cells) + ' |')
for t in runs:
    for r in runs[t]:
        m=r.get('machine',{})
        print(f'<!-- {t}: load {m.get("load_average")} at {m.get("date")} -->')
