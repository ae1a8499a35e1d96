#!/bin/bash
out=/tmp/issue27; cd /tmp/perfrun; J=/tmp/jar-final
while pgrep -f /tmp/quiet.sh >/dev/null; do sleep 2; done
for i in 4 5; do
  now=$(date -u +%H%M); if [[ "$now" > "2220" ]]; then echo "stopped before rabbitmq $i at $now" >> $out/issue27-machine.txt; break; fi
  echo "rabbitmq $i start $(date -u +%T) $(uptime)" >> $out/issue27-machine.txt
  nice java -cp "$J/once-app.jar:$J/lib/*" dev.once.app.Main bench e2e --db 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=perf' \
    --transport rabbitmq --amqp amqp://guest:guest@127.0.0.1:5672/perf --hops 1 --events 10000 --latency-seconds 8 --warmup 2000 --service --json \
    > $out/issue27-e2e-rabbitmq-$i.json 2> $out/issue27-e2e-rabbitmq-$i.err
  echo "rabbitmq $i end $(date -u +%T) exit $? $(uptime)" >> $out/issue27-machine.txt
done
