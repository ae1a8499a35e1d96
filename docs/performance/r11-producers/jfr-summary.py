#!/usr/bin/env python3
"""Where a JFR recording's Java samples went, per thread group and per first frame of Once's code.
Record with a settings file that samples every 1 ms:
  <configuration version="2.0"><event name="jdk.ExecutionSample"><setting name="enabled">true</setting>
  <setting name="period">1 ms</setting></event></configuration>
  (producers alone: java -XX:StartFlightRecording=filename=p.jfr,settings=s.jfc ... ProdBisect table 20000 4 raw once;
   the hop: ONCE_JAVA_OPTS="-XX:StartFlightRecording=..." ./once bench e2e --transport rabbitmq ...)
then: jfr print --stack-depth 200 --events jdk.ExecutionSample p.jfr > p.txt; jfr-summary.py p.txt [thread-prefix ...]"""
import collections, re, sys
evs = open(sys.argv[1]).read().split('jdk.ExecutionSample')[1:]
groups = sys.argv[2:] or None
def frames(e):
    return re.findall(r'^\s+([\w.$<>]+)\(.*?line: (\d+)', e, re.M)
if groups is None:
    once = [e for e in evs if 'OnceImpl' in e]
    raw = [e for e in evs if 'HandPipeline.produce' in e]
    print(f'samples: Once producers {len(once)}, raw JDBC producers {len(raw)}, all {len(evs)}')
    for key in ['String.formatted', 'createArrayOf', 'newProxyInstance', 'Restoring.invoke',
                'DatabaseWaits.limit', 'bindHeaders', 'Listeners', 'EventId']:
        print(f'  {key}: {sum(1 for e in once if key in e)}')
    groups = []
for prefix in groups:
    sel = [e for e in evs if re.search(r'sampledThread = "' + re.escape(prefix), e)]
    first = collections.Counter()
    for e in sel:
        for n, line in frames(e):
            if n.startswith('dev.once'):
                first[n.split('.')[-2] + '.' + n.split('.')[-1] + ':' + line] += 1
                break
    print(f'{prefix}: {len(sel)} samples; first frame of dev.once code:')
    for k, v in first.most_common(15):
        print(f'  {v} {k}')
