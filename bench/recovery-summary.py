#!/usr/bin/env python3
"""Prints the "Under faults" tables of docs/PERFORMANCE.md from the files bench/recovery.sh wrote
for one build: bench faults ratios per transport (medians of the runs), the demo runs and the
verifies, each with its wall time and load from runs.txt.
Usage: bench/recovery-summary.py [folder] [label]   (default /tmp/once-bench/recovery, after)"""
import glob, json, os, re, statistics as st, sys
here = sys.argv[1] if len(sys.argv) > 1 else '/tmp/once-bench/recovery'
label = sys.argv[2] if len(sys.argv) > 2 else 'after'
runs = {}
for line in open(os.path.join(here, 'runs.txt')):
    m = re.match(r'(\S+) (\S+)\s+' + re.escape(label) + r'\s+rc=(\d+) wall=\s*(\d+)s .*load (\S+),.* -> (\S+),', line)
    if m:
        runs.setdefault(m.group(2), []).append((m.group(1), int(m.group(3)), int(m.group(4)), m.group(5), m.group(6)))
def load(f):
    try:
        return json.load(open(f))
    except Exception:
        return None
print('| transport | phase | runs (faults_ratio) | median | duplicate effects |')
print('| --- | --- | --- | --: | --: |')
for t in ['table', 'rabbitmq', 'kafka']:
    files = sorted(glob.glob(os.path.join(here, f'faults-{t}-{label}-*.json')))
    ds = [d for d in map(load, files) if d]
    phases = []
    for d in ds:
        for k in d.get('faults_ratio', {}):
            if k not in phases:
                phases.append(k)
    for ph in phases:
        vals = [d['faults_ratio'][ph] for d in ds if ph in d.get('faults_ratio', {})]
        dups = sum(d.get('duplicate_effects', 0) for d in ds)
        print(f"| {t} | {ph} | {' / '.join(map(str, vals))} | **{st.median(vals)}** | {dups} |")
    print(f"| {t} | orders/s without faults | {' / '.join(str(d['eps_without_faults']) for d in ds)} | | |")
print()
print('| run | wall s (rc) | demo seconds | ok | duplicates | dead letters | load start -> end |')
print('| --- | --: | --: | --- | --: | --: | --- |')
for r in ['table', 'rabbit', 'rabbit-cuts', 'mariadb', 'crash05', 'verify-pg', 'verify-mariadb', 'faults-table', 'faults-rabbitmq', 'faults-kafka']:
    for i, (start, rc, wall, l1, l2) in enumerate(runs.get(r, [])):
        files = sorted(glob.glob(os.path.join(here, f'{r}-{label}-*.json')), key=lambda f: int(re.search(r'-(\d+)\.json$', f).group(1)))
        d = load(files[i]) if i < len(files) else None
        d = d or {}
        print(f"| {r} ({start}) | {wall} ({rc}) | {d.get('seconds', '')} | {d.get('ok', '')} | {d.get('duplicate_effects', '')} | {d.get('dead_letters', '')} | {l1} -> {l2} |")
