#!/usr/bin/env bash
# Recovery after faults (issue #22.3 "Done means"): the issue's demo commands, before (bba341b, the
# round's start) and after, in the same load window — one after the other (ORDER), or with PAR=1
# both at once (the same window exactly: each sees the other's load) —, each app from a copy of
# its once-app/target (jar + lib) so that no build touches it during the window, each run in a
# folder of its own (its own embedded PostgreSQL in .once/pg), on names of its own on the shared
# services (PostgreSQL schema / MariaDB database recovery_demo_<label>, RabbitMQ vhost
# recovery-demo-<label>; the cuts close the connections of that vhost only).
#   BEFORE=/tmp/rec-before AFTER=/tmp/rec-after ROUNDS=1 RUNS="table rabbit rabbit-cuts mariadb crash05 verify-pg verify-mariadb" \
#     [PAR=1] [ORDER="after before"] docs/performance/r4-recovery-run.sh
# Output: docs/performance/r4-recovery-<run>-<label>-<n>.json (+ .err), one line per run in
# r4-recovery-runs.txt (wall seconds, exit code, load before -> after).
set -uo pipefail
cd "$(dirname "$0")/../.."; OUT=$PWD/docs/performance
BEFORE=${BEFORE:?} AFTER=${AFTER:?} ROUNDS=${ROUNDS:-1}
RUNS=${RUNS:-table rabbit rabbit-cuts mariadb crash05 verify-pg verify-mariadb}
ORDER=${ORDER:-after before}
PAR=${PAR:-0}
PG='jdbc:postgresql://127.0.0.1:5432/test?user=postgres'
MARIADB='jdbc:mariadb://127.0.0.1:3306/test?user=root'
LOG=$OUT/r4-recovery-runs.txt

args() {
  local AMQP="amqp://guest:guest@127.0.0.1:5672/recovery-demo-$2" S=recovery_demo_$2
  case $1 in
    table)          echo "demo --events 400 --crash-rate 0.2 --duplicate-rate 0.2 --seed 23 --json" ;;
    rabbit)         echo "demo --transport rabbitmq --amqp $AMQP --events 3000 --crash-rate 0.1 --seed 3 --json" ;;
    rabbit-cuts)    echo "demo --transport rabbitmq --amqp $AMQP --db $PG --schema $S --force-shared --events 3000 --crash-rate 0.1 --seed 3 --json" ;;
    mariadb)        echo "demo --db $MARIADB --schema $S --force-shared --events 500 --crash-rate 0.15 --json" ;;
    crash05)        echo "demo --events 400 --crash-rate 0.5 --json" ;;
    verify-pg)      echo "verify --db $PG --schema ${S}_verify --force-shared --kills 20 --json" ;;
    verify-mariadb) echo "verify --db $MARIADB --schema ${S}_verify --force-shared --kills 20 --json" ;;
  esac
}

# Two cuts of every connection of the run's vhost (and only of it), 20 s and 45 s after the start.
cuts() {
  sleep 20; rabbitmqctl -q close_all_connections --vhost "$1" "recovery demo cut 1" >/dev/null 2>&1
  echo "cut 1 at $(date -u +%T)"
  sleep 25; rabbitmqctl -q close_all_connections --vhost "$1" "recovery demo cut 2" >/dev/null 2>&1
  echo "cut 2 at $(date -u +%T)"
}

one() { # run label
  local run=$1 label=$2 app=$BEFORE n=1 f dir up1 up2 start t0 t1 rc cutter=
  [[ $label == after ]] && app=$AFTER
  rabbitmqctl -q add_vhost "recovery-demo-$label" >/dev/null 2>&1
  rabbitmqctl -q set_permissions -p "recovery-demo-$label" guest '.*' '.*' '.*' >/dev/null 2>&1
  while [[ -e $OUT/r4-recovery-$run-$label-$n.json ]]; do n=$((n+1)); done
  f=$OUT/r4-recovery-$run-$label-$n
  : >"$f.json"
  dir=/tmp/r4-recovery-$label; mkdir -p "$dir"
  up1=$(uptime | sed 's/.*average: //'); start=$(date -u +%T); t0=$(date +%s.%N)
  if [[ $run == rabbit-cuts ]]; then cuts "recovery-demo-$label" >"$f.cuts" & cutter=$!; fi
  # shellcheck disable=SC2046
  (cd "$dir" && timeout --kill-after=10 900 java -cp "$app/once-app.jar:$app/lib/*" dev.once.app.Main \
     $(args "$run" "$label") >"$f.json" 2>"$f.err")
  rc=$?
  t1=$(date +%s.%N)
  [[ -n $cutter ]] && { kill "$cutter" 2>/dev/null; wait "$cutter" 2>/dev/null; }
  up2=$(uptime | sed 's/.*average: //')
  printf '%s %-15s %-6s rc=%s wall=%5.0fs par=%s load %s -> %s\n' "$start" "$run" "$label" "$rc" \
    "$(echo "$t1 - $t0" | bc)" "$PAR" "$up1" "$up2" | tee -a "$LOG"
}

echo "r4-recovery: start $(date -u +%T); $(uptime)" | tee -a "$LOG"
for round in $(seq 1 "$ROUNDS"); do
  for run in $RUNS; do
    if [[ $PAR == 1 ]]; then
      for label in $ORDER; do one "$run" "$label" & done
      wait
    else
      for label in $ORDER; do one "$run" "$label"; done
    fi
  done
done
echo "r4-recovery: end $(date -u +%T); $(uptime)" | tee -a "$LOG"
