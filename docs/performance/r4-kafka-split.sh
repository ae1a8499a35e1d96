#!/usr/bin/env bash
# Before/after of once-kafka in parts (issue #23.3: GroupConsumer split, embedded broker module):
# `once bench e2e --transport kafka --events 10000`, before and after interleaved, each app from a
# copy of its once-app/target (jar + lib) so that no build touches it during the window, each run
# in a folder of its own (its own embedded broker, .once/kafka), on a database of its own.
#   BEFORE=/tmp/kb-before AFTER=/tmp/kb-after ROUNDS=3 docs/performance/r4-kafka-split.sh
# Output: docs/performance/r4-kafka-<label>-<n>.json (+ .err), one line per run in r4-kafka-split.txt
set -uo pipefail
cd "$(dirname "$0")/../.."; OUT=$PWD/docs/performance
BEFORE=${BEFORE:?} AFTER=${AFTER:?} ROUNDS=${ROUNDS:-3}
DB='jdbc:postgresql://127.0.0.1:5432/transports_bench?user=postgres'
LOG=$OUT/r4-kafka-split.txt
psql -h 127.0.0.1 -U postgres -d test -Atc "SELECT 1 FROM pg_database WHERE datname='transports_bench'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d test -qc "CREATE DATABASE transports_bench"
echo "r4-kafka: start $(date -u +%T); $(uptime)" | tee -a "$LOG"
for round in $(seq 1 "$ROUNDS"); do
  for step in before:$BEFORE after:$AFTER; do
    label=${step%%:*}; app=${step#*:}
    n=1; while [[ -e $OUT/r4-kafka-$label-$n.json ]]; do n=$((n+1)); done
    f=$OUT/r4-kafka-$label-$n
    run=/tmp/r4-kafka-run-$label; mkdir -p "$run"
    up1=$(uptime | sed 's/.*average: //'); start=$(date -u +%T)
    (cd "$run" && timeout --kill-after=5 600 java -cp "$app/once-app.jar:$app/lib/*" dev.once.app.Main \
       bench e2e --db "$DB" --transport kafka --events 10000 --json >"$f.json" 2>"$f.err")
    rc=$?
    up2=$(uptime | sed 's/.*average: //')
    python3 - "$f.json" "$label" "$start" "$up1" "$up2" "$rc" <<'PY' | tee -a "$LOG"
import json,sys
f,label,start,u1,u2,rc=sys.argv[1:]
try:
  d=json.load(open(f))
  print(f"{start} {label:6} kafka e2e={d['e2e_eps']:.0f} P={d['ceiling_p_eps']:.0f} C={d['ceiling_c_eps']:.0f} ratio_c={d['ratio_c']:.2f} p50={d['p50_ms']:.0f} p99={d['p99_ms']:.0f} paced={d['paced_rate_eps']:.0f}/s paced_p99={d['paced_p99_ms']:.1f} dup={d['duplicate_effects']} load {u1} -> {u2}")
except Exception as e:
  print(f"{start} {label} kafka FAILED rc={rc} {e}")
PY
  done
done
echo "r4-kafka: end $(date -u +%T); $(uptime)" | tee -a "$LOG"
