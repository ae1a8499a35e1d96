#!/usr/bin/env bash
# final.sh: the quiet-window runs of docs/PERFORMANCE.md "Round 3 engine work".
# e.g. STEPS="before:/tmp/perf-before:table after:/tmp/perf-after:table after:/tmp/perf-after:table:--batch-linger-ms,0"
#      END_AT=$(date -d 10:59:40 +%s) docs/performance/r3e-run.sh   (APP dirs: copies of once-app/target)
# STEPS="label:app:transport:extra-args ..." ; output docs/performance/r3e-<label>-<transport>-<n>.json
set -uo pipefail
cd "$(dirname "$0")/../.."; OUT=docs/performance
END_AT=${END_AT:?}
DB='jdbc:postgresql://127.0.0.1:5432/test?user=postgres'
PSQL="psql -h 127.0.0.1 -p 5432 -U postgres -d test -Atq"
LOG=$OUT/r3e-run.txt
vacuum() {
  $PSQL -c "VACUUM once_outbox, once_queue, once_inbox, once_attempt" 2>/dev/null
  $PSQL -c "VACUUM bench_c_outbox, bench_c_inbox, bench_orders, bench_effects, bench_notifications" 2>/dev/null
}
echo "r3e: start $(date -u +%T), end at $(date -u -d @"$END_AT" +%T); $(uptime)" | tee -a $LOG
for step in $STEPS; do
  IFS=: read -r label app t extra <<<"$step"
  left=$((END_AT - $(date +%s)))
  if ((left < 75)); then echo "r3e: $left s left, not starting $step" | tee -a $LOG; continue; fi
  n=1; while [[ -e $OUT/r3e-$label-$t-$n.json ]]; do n=$((n+1)); done
  f=$OUT/r3e-$label-$t-$n
  vacuum
  echo "SELECT extract(epoch from clock_timestamp()), (SELECT xact_commit FROM pg_stat_database WHERE datname='test'), wal_sync, wal_records, wal_bytes, (SELECT count(DISTINCT processed_at) FROM once_inbox), (SELECT count(*) FROM once_inbox), 0, 0 FROM pg_stat_wal \\watch 0.2" \
    | timeout $left psql -h 127.0.0.1 -p 5432 -U postgres -d test -Atq -F ' ' > /tmp/r3e-$label-$t-$n.samples 2>/dev/null &
  S=$!
  python3 docs/performance/r3e-cpu.py /tmp/r3e-$label-$t-$n.cpu /var/run/postgresql/15-main.pid & CS=$!
  up1=$(uptime | sed 's/.*average: //'); start=$(date -u +%T)
  timeout --kill-after=3 $left java -cp "$app/once-app.jar:$app/lib/*" dev.once.app.Main bench e2e --db "$DB" --transport "$t" --events 10000 --json ${extra//,/ } >$f.json 2>$f.err
  rc=$?
  kill $S $CS 2>/dev/null; wait $S $CS 2>/dev/null
  up2=$(uptime | sed 's/.*average: //')
  python3 - "$f.json" "$label" "$t" "$start" "$up1" "$up2" "$rc" <<'PY' | tee -a $LOG
import json,sys
f,label,t,start,u1,u2,rc=sys.argv[1:]
try:
  d=json.load(open(f))
  print(f"{start} {label:10} {t:8} e2e={d['e2e_eps']:.0f} P={d['ceiling_p_eps']:.0f} C={d['ceiling_c_eps']:.0f} ratio_c={d['ratio_c']:.2f} ratio_p={d['ratio_p']:.2f} p99={d['p99_ms']:.0f} paced={d['paced_rate_eps']:.0f}/s paced_p50={d['paced_p50_ms']:.1f} paced_p99={d['paced_p99_ms']:.1f} dup={d['duplicate_effects']} load {u1} -> {u2}")
except Exception as e:
  print(f"{start} {label} {t} FAILED rc={rc} {e}")
PY
  cp /tmp/r3e-$label-$t-$n.samples $f.samples 2>/dev/null; cp /tmp/r3e-$label-$t-$n.cpu $f.cpu 2>/dev/null
  python3 docs/performance/r3e-phases.py $f 2>&1 | grep -v paced | tee -a $LOG
  rm -f $f.samples $f.cpu
done
echo "r3e: end $(date -u +%T); $(uptime)" | tee -a $LOG
