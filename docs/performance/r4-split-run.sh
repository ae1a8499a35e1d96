#!/usr/bin/env bash
# r4-split-run.sh: once bench e2e before/after the bench left the CLI (#23.4), interleaved, on the local
# PostgreSQL (a schema of its own) and RabbitMQ (a virtual host of its own).
# STEPS="label:appdir:transport ..." (appdir: a copy of once-app/target: once-app.jar + lib/)
# e.g. STEPS="before:/tmp/perf/before:table after:/tmp/perf/after:table" docs/performance/r4-split-run.sh
set -uo pipefail
cd "$(dirname "$0")/../.."; OUT=docs/performance
SCHEMA=bench_split; VHOST=once-bench-split
DB="jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=$SCHEMA"
AMQP="amqp://guest:guest@127.0.0.1:5672/$VHOST"
EVENTS=${EVENTS:-5000}
LOG=$OUT/r4-split-run.txt
psql -h 127.0.0.1 -U postgres -d test -Atq -c "CREATE SCHEMA IF NOT EXISTS $SCHEMA"
rabbitmqctl -q add_vhost $VHOST 2>/dev/null; rabbitmqctl -q set_permissions -p $VHOST guest '.*' '.*' '.*'
echo "r4-split: start $(date -u +%T); $(uptime)" | tee -a $LOG
for step in $STEPS; do
  IFS=: read -r label app t <<<"$step"
  n=1; while [[ -e $OUT/r4-split-$label-$t-$n.json ]]; do n=$((n+1)); done
  f=$OUT/r4-split-$label-$t-$n
  up1=$(uptime | sed 's/.*average: //'); start=$(date -u +%T)
  timeout --kill-after=3 900 java -cp "$app/once-app.jar:$app/lib/*" dev.once.app.Main bench e2e --db "$DB" \
    --amqp "$AMQP" --transport "$t" --events "$EVENTS" --latency-seconds 2 --json >$f.json 2>$f.err
  rc=$?
  up2=$(uptime | sed 's/.*average: //')
  python3 - "$f.json" "$label" "$t" "$start" "$up1" "$up2" "$rc" <<'PY' | tee -a $LOG
import json,sys
f,label,t,start,u1,u2,rc=sys.argv[1:]
try:
  d=json.load(open(f))
  print(f"{start} {label:7} {t:8} e2e={d['e2e_eps']:.0f} P={d['ceiling_p_eps']:.0f} C={d['ceiling_c_eps']:.0f} ratio_c={d['ratio_c']:.2f} ratio_p={d['ratio_p']:.2f} p99={d['p99_ms']:.0f} dup={d['duplicate_effects']} load {u1} -> {u2}")
except Exception as e:
  print(f"{start} {label} {t} FAILED rc={rc} {e}")
PY
done
psql -h 127.0.0.1 -U postgres -d test -Atq -c "DROP SCHEMA $SCHEMA CASCADE"
rabbitmqctl -q delete_vhost $VHOST
