#!/usr/bin/env bash
# Before/after of the dialect seam (issue #23.1: standard SQL over a SqlFlavour):
# `once bench e2e --transport table --events $EVENTS` on PostgreSQL and on MariaDB, before and after
# interleaved, each app from a copy of its once-app/target (jar + lib) so that no build touches it
# during the window, each on a database of its own (dialect_bench on both servers).
#   BEFORE=/tmp/kb-before AFTER=/tmp/kb-after ROUNDS=3 docs/performance/r4-dialect-split.sh
# Output: docs/performance/r4-dialect-<label>-<n>.json (+ .err), one line per run in r4-dialect-split.txt
set -uo pipefail
cd "$(dirname "$0")/../.."; OUT=$PWD/docs/performance
BEFORE=${BEFORE:?} AFTER=${AFTER:?} ROUNDS=${ROUNDS:-3}
EVENTS=${EVENTS:-5000}
PG='jdbc:postgresql://127.0.0.1:5432/dialect_bench?user=postgres'
MARIA='jdbc:mariadb://127.0.0.1:3306/dialect_bench?user=root'
LOG=$OUT/r4-dialect-split.txt
psql -h 127.0.0.1 -U postgres -d test -Atc "SELECT 1 FROM pg_database WHERE datname='dialect_bench'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d test -qc "CREATE DATABASE dialect_bench"
mariadb -h 127.0.0.1 -u root -e "CREATE DATABASE IF NOT EXISTS dialect_bench"
echo "r4-dialect: start $(date -u +%T); $(uptime)" | tee -a "$LOG"
for round in $(seq 1 "$ROUNDS"); do
  for db in pg maria; do
  for step in before:$BEFORE after:$AFTER; do
    label=$db-${step%%:*}; app=${step#*:}; url=$PG; [[ $db == maria ]] && url=$MARIA
    n=1; while [[ -e $OUT/r4-dialect-$label-$n.json ]]; do n=$((n+1)); done
    f=$OUT/r4-dialect-$label-$n
    run=/tmp/r4-dialect-run-$label; mkdir -p "$run"
    up1=$(uptime | sed 's/.*average: //'); start=$(date -u +%T)
    (cd "$run" && timeout --kill-after=5 600 java -cp "$app/once-app.jar:$app/lib/*" dev.once.app.Main \
       bench e2e --db "$url" --transport table --events "$EVENTS" --json >"$f.json" 2>"$f.err")
    rc=$?
    up2=$(uptime | sed 's/.*average: //')
    python3 - "$f.json" "$label" "$start" "$up1" "$up2" "$rc" <<'PY' | tee -a "$LOG"
import json,sys
f,label,start,u1,u2,rc=sys.argv[1:]
try:
  d=json.load(open(f))
  print(f"{start} {label:12} table e2e={d['e2e_eps']:.0f} P={d['ceiling_p_eps']:.0f} C={d['ceiling_c_eps']:.0f} ratio_c={d['ratio_c']:.2f} p50={d['p50_ms']:.0f} p99={d['p99_ms']:.0f} paced={d['paced_rate_eps']:.0f}/s paced_p99={d['paced_p99_ms']:.1f} dup={d['duplicate_effects']} load {u1} -> {u2}")
except Exception as e:
  print(f"{start} {label} table FAILED rc={rc} {e}")
PY
  done
  done
done
echo "r4-dialect: end $(date -u +%T); $(uptime)" | tee -a "$LOG"
