#!/usr/bin/env python3
"""Per build: Once / raw orders per second (median and mean of rounds 1-4 of each JVM) and the JVM's
CPU per order, raw and Once, from ab.sh's output."""
import re, sys, collections, statistics as st
cur = None
data = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    m = re.match(r'== (\S+) pass', line)
    if m:
        cur = m.group(1)
        continue
    m = re.match(r'round (\d+) (\S+)\s+([\d.]+)\s+cpu/order\s+([\d.]+)', line)
    if m and int(m.group(1)) >= 1:
        data[cur][m.group(2)].append((float(m.group(3)), float(m.group(4))))
for b, d in data.items():
    raw, once = d['raw'], d['once']
    ratios = [o[0] / r[0] for r, o in zip(raw, once)]
    cr, co = st.mean(x[1] for x in raw), st.mean(x[1] for x in once)
    print(f"{b}: rounds {len(raw)}, Once/raw orders/s median {st.median(ratios):.3f} mean {st.mean(ratios):.3f};"
          f" JVM CPU per order raw {cr:.1f} us, Once {co:.1f} us, Once's extra {co - cr:.1f} us")
