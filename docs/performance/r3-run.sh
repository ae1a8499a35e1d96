#!/usr/bin/env bash
# Round 3 of docs/PERFORMANCE.md: `once bench e2e`, RUNS runs per transport (interleaved, so that a
# cut-short window leaves both transports with as many runs), then `once worker` + `once produce`
# as separate processes. Raw output goes to $OUT/r3-*.json. Nothing is started after END_AT
# (seconds since the epoch), and every java process is killed at END_AT at the latest.
#
#   APP=/tmp/app END_AT=$(date -d 08:15 +%s) docs/performance/r3-run.sh
#
# APP holds once-app.jar and lib/ (a copy of once-app/target, so that a rebuild during the run
# changes nothing). The database is vacuumed between runs: autovacuum is off on this machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-docs/performance}
APP=${APP:-once-app/target}
DB=${DB:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres}
PSQL=${PSQL:-psql -h 127.0.0.1 -U postgres -d test -Atq}
EVENTS=${EVENTS:-10000}
RUNS=${RUNS:-3}
TRANSPORTS=${TRANSPORTS:-table rabbitmq}
END_AT=${END_AT:-$(($(date +%s) + 900))}
# a bench run is not started unless this many seconds are left
RUN_SECONDS=${RUN_SECONDS:-150}

left() { echo $((END_AT - $(date +%s))); }
once() {
  local t
  t=$(left)
  ((t > 0)) || return 124
  timeout --kill-after=3 "$t" java -cp "$APP/once-app.jar:$APP/lib/*" dev.once.app.Main "$@"
}
vacuum() {
  $PSQL -c "VACUUM once_outbox, once_queue, once_inbox, once_attempt" 2>/dev/null
  $PSQL -c "VACUUM bench_c_outbox, bench_c_inbox, bench_orders, bench_effects, bench_notifications" 2>/dev/null
  $PSQL -c "VACUUM demo_orders, demo_dispatch_jobs, demo_notifications" 2>/dev/null
  true
}

echo "r3: start $(date -u +%T), end at $(date -u -d @"$END_AT" +%T); $(uptime)"

# Where the time goes: every 0.25 s, what each active backend of the database waits for, with the
# start of its statement (Once's statements name once_*, the hand-written pipeline's bench_c_*).
SAMPLES="$OUT/r3-wait-samples.txt"
{
  echo "SELECT now()::time(2) AS t, coalesce(wait_event_type, 'CPU') AS type,"
  echo "       coalesce(wait_event, '-') AS event, left(regexp_replace(query, '\s+', ' ', 'g'), 60) AS q"
  echo "  FROM pg_stat_activity WHERE datname = current_database() AND state = 'active'"
  echo "   AND pid <> pg_backend_pid() \\watch 0.25"
} | timeout "$(left)" $PSQL -F '|' >"$SAMPLES" 2>/dev/null &
SAMPLER=$!
bench() {
  local t=$1 i=$2
  vacuum
  echo "r3: $(date -u +%T) bench e2e --transport $t, run $i"
  once bench e2e --db "$DB" --transport "$t" --events "$EVENTS" --json \
    >"$OUT/r3-$t-$i.json" 2>"$OUT/r3-$t-$i.err"
  echo "r3: $(date -u +%T) exit $? $(head -c 200 "$OUT/r3-$t-$i.json")"
}

# The user's path: one worker process and one producer process, as in issue 17.
processes() {
  local t=$1 workers=$2 name="$OUT/r3-processes-$1-$2w.json" pids=() w
  rm -f "$OUT"/r3-worker-*.log
  once reset --db "$DB" --transport "$t" >/dev/null 2>&1
  vacuum
  for w in $(seq "$workers"); do
    # timeout directly (not the function): killing it passes the signal on to the JVM
    timeout --kill-after=3 "$(left)" java -cp "$APP/once-app.jar:$APP/lib/*" dev.once.app.Main \
      worker --db "$DB" --transport "$t" --threads 4 --relays 2 >"$OUT/r3-worker-$w.log" 2>&1 &
    pids+=($!)
  done
  # wait (at most 60 s) until every worker says it runs
  for _ in $(seq 300); do
    (($(cat "$OUT"/r3-worker-*.log 2>/dev/null | grep -c "once worker: running") >= workers)) && break
    sleep 0.2
  done
  echo "r3: $(date -u +%T) produce $EVENTS orders, $workers worker process(es), $t"
  once produce --db "$DB" --events "$EVENTS" --threads 4 >/dev/null 2>&1
  local done_at=$(($(date +%s) + 180))
  while (($($PSQL -c "SELECT count(*) FROM demo_notifications") < EVENTS)); do
    if (($(date +%s) > done_at || $(left) <= 0)); then
      echo "r3: the notifications did not all arrive"
      break
    fi
    sleep 0.2
  done
  $PSQL -c "SELECT json_build_object(
      'processes_eps', round((SELECT count(*) FROM demo_notifications)
        / extract(epoch FROM (SELECT max(created_at) FROM demo_notifications)
                           - (SELECT min(created_at) FROM demo_orders)), 1),
      'orders', (SELECT count(*) FROM demo_orders),
      'notifications', (SELECT count(*) FROM demo_notifications),
      'seconds', round(extract(epoch FROM (SELECT max(created_at) FROM demo_notifications)
                                        - (SELECT min(created_at) FROM demo_orders)), 2),
      'duplicate_effects', (SELECT count(*) - count(DISTINCT event_id) FROM demo_dispatch_jobs)
                         + (SELECT count(*) - count(DISTINCT event_id) FROM demo_notifications),
      'transport', '$t', 'worker_processes', $workers, 'threads', 4, 'relays', 2,
      'producer_threads', 4, 'date', now())" >"$name"
  echo "r3: $(date -u +%T) $(cat "$name")"
  kill "${pids[@]}" 2>/dev/null
  wait "${pids[@]}" 2>/dev/null
}

# The steps, in order: bench:<transport>:<run> and processes:<transport>:<worker processes>.
# Bench runs interleave the transports; a step is not started unless enough time is left.
if [[ -z "${STEPS:-}" ]]; then
  STEPS=""
  for i in $(seq "$RUNS"); do
    for t in $TRANSPORTS; do STEPS+=" bench:$t:$i"; done
  done
  STEPS+=" ${EXTRA_STEPS:-processes:table:1 processes:rabbitmq:1 bench:kafka:1 processes:table:2 processes:table:3}"
fi
for step in $STEPS; do
  IFS=: read -r kind t n <<<"$step"
  need=$RUN_SECONDS
  [[ $kind == processes ]] && need=75
  if (($(left) < need)); then
    echo "r3: $(left) s left, not starting $step"
    continue
  fi
  case $kind in
    bench) bench "$t" "$n" ;;
    processes) processes "$t" "$n" ;;
  esac
done
kill "$SAMPLER" 2>/dev/null
echo "r3: end $(date -u +%T); $(uptime)"
