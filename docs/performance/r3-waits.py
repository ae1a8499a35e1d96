#!/usr/bin/env python3
# Round 3: wait events of the samples r3-run.sh took, by phase of the bench runs (from the
# timestamps of their .err files). Usage: r3-waits.py r3-wait-samples.txt r3-*-?.err
import sys, collections, re
# usage: waits.py samples.txt errfile  -> wait events by phase (from the err file's timestamps)
samples = [l.rstrip('\n').split('|') for l in open(sys.argv[1]) if l.count('|') >= 3]
phases = []
for f in sys.argv[2:]:
    for l in open(f):
        m = re.match(r'\s+(\d\d:\d\d:\d\d\.?\d*) (.*)', l)
        if m: phases.append((m.group(1), m.group(2), f))
phases.sort()
def phase(t):
    cur = None
    for ts, what, f in phases:
        if ts <= t: cur = (f.split('/')[-1].replace('.err',''), what.split(':')[0].split(' ...')[0])
    return cur
agg = collections.defaultdict(collections.Counter)
for t, typ, ev, q in samples:
    ph = phase(t)
    if ph is None: continue
    agg[ph][(typ, ev)] += 1
for ph, c in agg.items():
    tot = sum(c.values())
    print(ph, tot, 'active samples;', ', '.join(f'{k[0]}:{k[1]} {v*100//tot}%' for k, v in c.most_common(6)))
