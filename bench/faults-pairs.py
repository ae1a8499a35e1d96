#!/usr/bin/env python3
"""`bench faults` before/after with the order of the two builds in each pair counted, from the files
bench/recovery.sh wrote (APPS="before=... after=..."): the n-th run of a label in runs.txt is its
file <run>-<label>-<n>.json; the n-th before
and after runs form pair n, and the log says which of the two ran first. Per transport: the
after/before ratio of each phase (medians over pairs), and the geometric mean over phases of the
pairs' ratios -- all pairs, pairs where before ran first, pairs where after ran first (a build that
runs second in a pair on this machine runs slower; balanced orders cancel it).
Usage: bench/faults-pairs.py [folder [before-label after-label]]   (default /tmp/once-bench/recovery,
before, after); a label written label@k
skips that label's first k runs (a build measured again against another one later)."""
import json, os, re, statistics as st, sys
here = sys.argv[1] if len(sys.argv) > 1 else '/tmp/once-bench/recovery'
B, A = sys.argv[2:4] if len(sys.argv) > 3 else ('before', 'after')
skip = {}
for label in (B, A):
    if '@' in label:
        name, k = label.split('@')
        skip[name] = int(k)
B, A = B.split('@')[0], A.split('@')[0]
log = open(os.path.join(here, 'runs.txt')).read().splitlines()
seq = {}
for i, line in enumerate(log):
    m = re.match(r'\S+ (faults-\S+)\s+(\S+)\s+rc=', line)
    if m and m.group(2) in (B, A):
        seq.setdefault((m.group(1), m.group(2)), []).append(i)
for t in ['table', 'rabbitmq', 'kafka']:
    run = f'faults-{t}'
    bs = seq.get((run, B), [])[skip.get(B, 0):]
    as_ = seq.get((run, A), [])[skip.get(A, 0):]
    pairs = []
    for n in range(min(len(bs), len(as_))):
        fb = os.path.join(here, f'{run}-{B}-{n + 1 + skip.get(B, 0)}.json')
        fa = os.path.join(here, f'{run}-{A}-{n + 1 + skip.get(A, 0)}.json')
        try:
            db, da = json.load(open(fb)), json.load(open(fa))
        except Exception:
            continue
        first = B if bs[n] < as_[n] else A
        ratios = {pb['phase']: pa['eps'] / pb['eps'] for pb, pa in zip(db['phases'], da['phases'])}
        dups = sum(p.get('duplicate_effects', 0) for d in (db, da) for p in d['phases'])
        pairs.append((first, ratios, dups))
    if not pairs:
        continue
    phases = list(pairs[0][1])
    def geo(ps):
        return st.geometric_mean([r for _, rs, _ in ps for r in rs.values()]) if ps else float('nan')
    print(f"{t}: {len(pairs)} pairs ({sum(1 for p in pairs if p[0] == B)} with {B} first), "
          f"duplicate effects {sum(p[2] for p in pairs)}")
    print('  after/before by phase (median over pairs): ' + ', '.join(
        f"{ph} {st.median([rs[ph] for _, rs, _ in pairs]):.3f}" for ph in phases))
    print(f"  geometric mean over pairs and phases: all {geo(pairs):.3f}, "
          f"{B} first {geo([p for p in pairs if p[0] == B]):.3f}, "
          f"{A} first {geo([p for p in pairs if p[0] == A]):.3f}")
