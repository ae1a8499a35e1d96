#!/usr/bin/env bash
# r4-faults-run.sh: once bench faults (#22.3), ROUNDS rounds over TRANSPORTS, on the local PostgreSQL
# (a schema of its own) and RabbitMQ (a virtual host of its own; Kafka: the embedded broker).
# e.g. APP=/tmp/perf/after ROUNDS=3 TRANSPORTS="table rabbitmq" docs/performance/r4-faults-run.sh
# (APP: a copy of once-app/target: once-app.jar + lib/). Output docs/performance/r4-faults-<t>-<n>.json
set -uo pipefail
cd "$(dirname "$0")/../.."; OUT=docs/performance
APP=${APP:?}; ROUNDS=${ROUNDS:-3}; TRANSPORTS=${TRANSPORTS:-table rabbitmq}; EXTRA=${EXTRA:-}
SCHEMA=bench_faults; VHOST=once-bench-faults
DB="jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=$SCHEMA"
AMQP="amqp://guest:guest@127.0.0.1:5672/$VHOST"
LOG=$OUT/r4-faults-run.txt
psql -h 127.0.0.1 -U postgres -d test -Atq -c "CREATE SCHEMA IF NOT EXISTS $SCHEMA"
rabbitmqctl -q add_vhost $VHOST 2>/dev/null; rabbitmqctl -q set_permissions -p $VHOST guest '.*' '.*' '.*'
echo "r4-faults: start $(date -u +%T); $(uptime); extra: $EXTRA" | tee -a $LOG
for r in $(seq "$ROUNDS"); do
  for t in $TRANSPORTS; do
    n=1; while [[ -e $OUT/r4-faults-$t-$n.json ]]; do n=$((n+1)); done
    f=$OUT/r4-faults-$t-$n
    up1=$(uptime | sed 's/.*average: //'); start=$(date -u +%T)
    timeout --kill-after=3 3600 java -cp "$APP/once-app.jar:$APP/lib/*" dev.once.app.Main bench faults --db "$DB" \
      --amqp "$AMQP" --transport "$t" --json $EXTRA >$f.json 2>$f.err
    rc=$?
    up2=$(uptime | sed 's/.*average: //')
    python3 - "$f.json" "$t" "$start" "$up1" "$up2" "$rc" <<'PY' | tee -a $LOG
import json,sys
f,t,start,u1,u2,rc=sys.argv[1:]
try:
  d=json.load(open(f))
  ph=" ".join(f"{p['phase']}={p['eps']:.0f}/s({p['crashes']}c)" for p in d['phases'])
  ra=" ".join(f"{k}={v:.2f}" for k,v in d['faults_ratio'].items())
  print(f"{start} {t:8} {ph} | faults_ratio {ra} | dup={d['duplicate_effects']} rc={rc} load {u1} -> {u2}")
except Exception as e:
  print(f"{start} {t} FAILED rc={rc} {e}")
PY
  done
done
psql -h 127.0.0.1 -U postgres -d test -Atq -c "DROP SCHEMA $SCHEMA CASCADE"
rabbitmqctl -q delete_vhost $VHOST
