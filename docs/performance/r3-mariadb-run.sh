#!/usr/bin/env bash
# MariaDB beside PostgreSQL on the same machine (docs/MARIADB.md, docs/PERFORMANCE.md): `once verify
# --kills 20` on each database (timed), then RUNS runs each of `once bench` (the drain) and `once
# bench e2e`, table queue, interleaved (MariaDB, PostgreSQL, ...) so that a cut-short window leaves
# both with as many runs. Raw output goes to $OUT/r3-mariadb-*.json / r3-pg-*.json, one line per
# step with the load average to $OUT/r3-mariadb-log.txt. Nothing is started after END_AT.
#
#   APP=/tmp/app END_AT=$(date -d 11:00 +%s) docs/performance/r3-mariadb-run.sh
#
# APP holds once-app.jar and lib/ (a copy of once-app/target). PostgreSQL's tables the runs churn
# are vacuumed before every PostgreSQL step: autovacuum is off on this machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-docs/performance}
APP=${APP:-once-app/target}
PG=${PG:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres}
MARIADB=${MARIADB:-jdbc:mariadb://127.0.0.1:3306/test?user=root}
PSQL=${PSQL:-psql -h 127.0.0.1 -U postgres -d test -Atq}
EVENTS=${EVENTS:-10000}
RUNS=${RUNS:-3}
KILLS=${KILLS:-20}
END_AT=${END_AT:-$(($(date +%s) + 1200))}
LOG="$OUT/r3-mariadb-log.txt"

left() { echo $((END_AT - $(date +%s))); }
once() {
  local t
  t=$(left)
  ((t > 0)) || return 124
  timeout --kill-after=3 "$t" java -cp "$APP/once-app.jar:$APP/lib/*" dev.once.app.Main "$@"
}
# the bench works in the URL's schema (public), verify in its own (once_demo)
vacuum() {
  local s
  for s in public once_demo; do
    $PSQL -c "VACUUM $s.once_outbox, $s.once_queue, $s.once_inbox, $s.once_attempt" 2>/dev/null
  done
  $PSQL -c "VACUUM bench_c_outbox, bench_c_inbox, bench_orders, bench_effects, bench_notifications" 2>/dev/null
  $PSQL -c "VACUUM once_demo.demo_orders, once_demo.demo_dispatch_jobs, once_demo.demo_notifications" 2>/dev/null
  true
}
log() { echo "$(date -u +%T) $* | $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$LOG"; }
url() { [[ $1 == mariadb ]] && echo "$MARIADB" || echo "$PG"; }

step() {
  local kind=$1 db=$2 n=$3 name start rc
  name="$OUT/r3-$db-$kind-$n"
  [[ $db == pg ]] && vacuum
  log "start $kind on $db, run $n"
  start=$(date +%s.%N)
  case $kind in
    verify) once verify --db "$(url "$db")" --kills "$KILLS" --json >"$name.json" 2>"$name.err" ;;
    drain) once bench --db "$(url "$db")" --events "$EVENTS" --json >"$name.json" 2>"$name.err" ;;
    e2e) once bench e2e --db "$(url "$db")" --transport table --events "$EVENTS" --json \
      >"$name.json" 2>"$name.err" ;;
  esac
  rc=$?
  log "end $kind on $db, run $n: exit $rc, $(echo "$(date +%s.%N) - $start" | bc | cut -c1-6) s"
}

log "r3-mariadb: start, end at $(date -u -d @"$END_AT" +%T); $(uptime)"
STEPS=${STEPS:-}
if [[ -z $STEPS ]]; then
  STEPS="verify:mariadb:1 verify:pg:1"
  for i in $(seq "$RUNS"); do
    STEPS+=" drain:mariadb:$i drain:pg:$i e2e:mariadb:$i e2e:pg:$i"
  done
fi
for s in $STEPS; do
  IFS=: read -r kind db n <<<"$s"
  if (($(left) < 60)); then
    log "$(left) s left, not starting $s"
    continue
  fi
  step "$kind" "$db" "$n"
done
[[ -n $(echo "$STEPS" | grep pg) ]] && vacuum
log "r3-mariadb: end; $(uptime)"
