#!/usr/bin/env bash
# MariaDB beside PostgreSQL on the same machine (docs/MARIADB.md, docs/PERFORMANCE.md): `once verify
# --kills 20` on each database (timed) and RUNS runs each of `once bench` (the drain) and `once
# bench e2e`, table queue: one run of each bench first, then the verifies, then the other runs,
# interleaved (MariaDB, PostgreSQL, ...) so that a cut-short window leaves both with as many runs.
# Raw output goes to $OUT/<kind>-mariadb-<n>.json / <kind>-pg-<n>.json (OUT default
# /tmp/once-bench/mariadb), one line per step with the load average to $OUT/log.txt. Nothing is started after END_AT.
# Everything runs in namespaces of its own (database / schema maria_bench for the bench,
# maria_verify for verify), so that other sessions' demos and benches on the shared servers
# cannot clear its rows.
#
#   APP=/tmp/app END_AT=$(date -d 11:00 +%s) bench/mariadb-beside-postgresql.sh
#
# APP holds once-app.jar and lib/ (a copy of once-app/target). PostgreSQL's tables the runs churn
# are vacuumed before every PostgreSQL step: autovacuum is off on this machine.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/once-bench/mariadb}
mkdir -p "$OUT"
APP=${APP:-once-app/target}
PG=${PG:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=maria_bench}
MARIADB=${MARIADB:-jdbc:mariadb://127.0.0.1:3306/maria_bench?user=root}
VERIFY_SCHEMA=${VERIFY_SCHEMA:-maria_verify}
PSQL=${PSQL:-psql -h 127.0.0.1 -U postgres -d test -Atq}
EVENTS=${EVENTS:-10000}
RUNS=${RUNS:-3}
KILLS=${KILLS:-20}
END_AT=${END_AT:-$(($(date +%s) + 1200))}
LOG="$OUT/log.txt"

left() { echo $((END_AT - $(date +%s))); }
once() {
  local t
  t=$(left)
  ((t > 0)) || return 124
  timeout --kill-after=3 "$t" java -cp "$APP/once-app.jar:$APP/lib/*" dev.once.app.Main "$@"
}
vacuum() {
  local s b=maria_bench v=$VERIFY_SCHEMA
  for s in $b $v; do
    $PSQL -c "VACUUM $s.once_outbox, $s.once_queue, $s.once_inbox, $s.once_attempt" 2>/dev/null
  done
  $PSQL -c "VACUUM $b.bench_c_outbox, $b.bench_c_inbox, $b.bench_orders, $b.bench_effects, $b.bench_notifications" 2>/dev/null
  $PSQL -c "VACUUM $v.demo_orders, $v.demo_dispatch_jobs, $v.demo_notifications" 2>/dev/null
  true
}
log() { echo "$(date -u +%T) $* | $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$LOG"; }
url() { [[ $1 == mariadb ]] && echo "$MARIADB" || echo "$PG"; }

step() {
  local kind=$1 db=$2 n=$3 name start rc
  name="$OUT/$kind-$db-$n"
  [[ $db == pg ]] && vacuum
  log "start $kind on $db, run $n"
  start=$(date +%s.%N)
  case $kind in
    verify) once verify --db "$(url "$db")" --schema "$VERIFY_SCHEMA" --kills "$KILLS" --json \
      >"$name.json" 2>"$name.err" ;;
    drain) once bench --db "$(url "$db")" --events "$EVENTS" --json >"$name.json" 2>"$name.err" ;;
    e2e) once bench e2e --db "$(url "$db")" --transport table --events "$EVENTS" --json \
      >"$name.json" 2>"$name.err" ;;
  esac
  rc=$?
  log "end $kind on $db, run $n: exit $rc, $(echo "$(date +%s.%N) - $start" | bc | cut -c1-6) s"
}

log "mariadb-beside-postgresql: start, end at $(date -u -d @"$END_AT" +%T); $(uptime)"
$PSQL -c "CREATE SCHEMA IF NOT EXISTS maria_bench"
mysql -h 127.0.0.1 -u root -e "CREATE DATABASE IF NOT EXISTS maria_bench"
STEPS=${STEPS:-}
if [[ -z $STEPS ]]; then
  # one run of each bench first, then the verifies, then the other bench runs
  STEPS="drain:mariadb:1 drain:pg:1 e2e:mariadb:1 e2e:pg:1 verify:mariadb:1 verify:pg:1"
  for i in $(seq 2 "$RUNS"); do
    STEPS+=" drain:mariadb:$i drain:pg:$i e2e:mariadb:$i e2e:pg:$i"
  done
fi
for s in $STEPS; do
  IFS=: read -r kind db n <<<"$s"
  need=${NEED:-90}
  [[ $kind == verify ]] && need=${NEED_VERIFY:-240}
  if (($(left) < need)); then
    log "$(left) s left, not starting $s"
    continue
  fi
  step "$kind" "$db" "$n"
done
[[ -n $(echo "$STEPS" | grep pg) ]] && vacuum
log "mariadb-beside-postgresql: end; $(uptime)"
