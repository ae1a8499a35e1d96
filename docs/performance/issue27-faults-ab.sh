#!/bin/bash
for j in jar-base jar-new4; do
  echo "== $j $(uptime)"
  /tmp/bench.sh /tmp/$j perff faults --transport rabbitmq --amqp amqp://guest:guest@127.0.0.1:5672/perff --events 500 --crash-rates 0,0.1 --json 2>/tmp/faults-$j.err | python3 -c "import json,sys; j=json.load(sys.stdin); j.pop('machine',None); print(j)"
done
