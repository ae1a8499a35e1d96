#!/bin/bash
# The quiet window (22:00-22:25 UTC): final figures of main as landed, one hop, per transport,
# interleaved table/rabbitmq/kafka, up to three rounds; stops starting runs after 22:21.
out=/tmp/issue27; mkdir -p $out; cd /tmp/perfrun
J=/tmp/jar-final
{ date -u; uptime; nproc; } > $out/issue27-machine.txt
/usr/lib/postgresql/15/bin/pg_test_fsync -s 2 -f /var/lib/postgresql/perf_fsync.tmp > $out/issue27-pg_test_fsync.txt 2>&1
rm -f /var/lib/postgresql/perf_fsync.tmp
uptime >> $out/issue27-machine.txt
for i in 1 2 3; do for t in table rabbitmq kafka; do
  svc=--service; [[ $t == kafka ]] && svc=""
  now=$(date -u +%H%M)
  if [[ "$now" > "2220" ]]; then echo "stopped before $t $i at $now" >> $out/issue27-machine.txt; break 2; fi
  echo "$t $i start $(date -u +%T) $(uptime)" >> $out/issue27-machine.txt
  nice java -cp "$J/once-app.jar:$J/lib/*" dev.once.app.Main bench e2e --db 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=perf' \
    --transport $t --amqp amqp://guest:guest@127.0.0.1:5672/perf --hops 1 --events 10000 --latency-seconds 8 --warmup 2000 $svc --json \
    > $out/issue27-e2e-$t-$i.json 2> $out/issue27-e2e-$t-$i.err
  echo "$t $i end $(date -u +%T) exit $? $(uptime)" >> $out/issue27-machine.txt
done; done
date -u >> $out/issue27-machine.txt
