#!/bin/bash
while pgrep -f "ab_faults.sh" >/dev/null; do sleep 5; done
for j in jar-new4 jar-base jar-new4; do
  echo "== rabbitmq $j $(uptime)"
  /tmp/bench.sh /tmp/$j perf e2e --transport rabbitmq --amqp amqp://guest:guest@127.0.0.1:5672/perf --hops 1 --events 4000 --latency-seconds 6 --latency-rate 120 --warmup 1000 --json 2>/tmp/eng2-$j.err | python3 -c "import json,sys; j=json.load(sys.stdin); print({k:j.get(k) for k in ['e2e_eps','ceiling_c_eps','once_producers_eps','ceiling_p_eps','paced_rate_eps','paced_p50_ms','paced_p99_ms','ceiling_c_paced_p50_ms','ceiling_c_paced_p99_ms','duplicate_effects','paced_commit_to_confirmed_p50_ms','paced_confirmed_to_received_p50_ms','paced_received_to_effect_p50_ms']})"
  if [[ "$(date -u +%H%M)" > "2155" ]]; then echo "stopped at $(date -u +%T)"; break; fi
done
