#!/usr/bin/env python3
"""The JIT's work in one JFR recording made with bench/handwritten-probe/jit.jfc.

Usage: jit-summary.py RECORDING.jfr [PACKAGE_PREFIX]

Prints compilations (all tiers), C2 compilations with their time and code size, C2 compilations
of methods of PACKAGE_PREFIX (default dev/once), the methods C2 compiled more than once, and the
deoptimizations, each joined to the compiled unit it threw out (by compile id), with the method
and line of the trap. Compile times are wall-clock: on a loaded machine they grow with the load.
"""
import collections
import json
import re
import subprocess
import sys


def events(recording, name):
    out = subprocess.run(['jfr', 'print', '--json', '--stack-depth', '12', '--events', name, recording],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)['recording']['events']


def millis(duration):
    m = re.match(r'PT(?:(\d+)M)?([\d.]+)S', duration)
    return (int(m.group(1) or 0) * 60 + float(m.group(2))) * 1000 if m else 0


def main():
    recording = sys.argv[1]
    prefix = sys.argv[2] if len(sys.argv) > 2 else 'dev/once'
    compiles = events(recording, 'jdk.Compilation')
    deopts = events(recording, 'jdk.Deoptimization')
    unit = {}
    c2 = collections.Counter()
    c2_ms = c2_bytes = own = own_bytes = 0
    for e in compiles:
        v = e['values']
        name = v['method']['type']['name'] + '.' + v['method']['name']
        unit[v['compileId']] = (name, v.get('codeSize', 0))
        if v['compileLevel'] == 4:
            c2[name] += 1
            c2_ms += millis(v['duration'])
            c2_bytes += v.get('codeSize', 0)
            if name.startswith(prefix):
                own += 1
                own_bytes += v.get('codeSize', 0)
    print('compilations=%d c2=%d c2_ms=%.0f c2_kB=%.0f %s_c2=%d %s_c2_kB=%.0f deopts=%d' % (
        len(compiles), sum(c2.values()), c2_ms, c2_bytes / 1024, prefix, own, prefix,
        own_bytes / 1024, len(deopts)))
    print('C2 more than once:', ' '.join('%s x%d' % (n, k) for n, k in c2.most_common() if k > 1
                                          and n.startswith(prefix)) or '-')
    traps = collections.Counter()
    for e in deopts:
        v = e['values']
        root, size = unit.get(v['compileId'], ('?', 0))
        trap = v['method']['type']['name'].split('/')[-1] + '.' + v['method']['name']
        traps[(root, size, trap, v.get('lineNumber'), v['reason'], v['action'])] += 1
    print('deoptimizations in %s units (count, unit, unit bytes, trap method, line, reason, action):' % prefix)
    for key, k in traps.most_common():
        if key[0].startswith(prefix):
            print(' ', k, *key)


if __name__ == '__main__':
    main()
