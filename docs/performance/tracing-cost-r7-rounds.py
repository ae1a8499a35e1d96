#!/usr/bin/env python3
"""Round 7's table of docs/PERFORMANCE.md (tracing's cost): per round, each mode's orders/s and its
ratio to off in the same round, from tracing-cost-r7-raw.json (or the file given)."""
import json, sys
j = json.load(open(sys.argv[1] if len(sys.argv) > 1 else 'docs/performance/tracing-cost-r7-raw.json'))
by = {}
for r in j['runs']:
    by.setdefault(r['round'], {})[r['tracing']] = r
modes = ['request-only', 'sampled-out', 'sampled', 'on']
print('| round | off | ' + ' | '.join(modes) + ' | sampled-out / request-only |')
print('| --: | --: | ' + ' | '.join('--:' for _ in modes) + ' | --: |')
for rd in sorted(by):
    m = by[rd]
    off = m['off']['eps']
    cells = [f"{off:.0f}"] + [f"{m[k]['eps']:.0f} ({m[k]['eps'] / off:.2f})" for k in modes if k in m]
    print(f"| {rd} | " + ' | '.join(cells) + f" | {m['sampled-out']['eps'] / m['request-only']['eps']:.2f} |")
