#!/usr/bin/env bash
# Recovery after faults (docs/PERFORMANCE.md, "Under faults"): the demo runs with crashes and
# connection cuts, `once bench faults`
# per transport and `once verify --kills 20` per database, for one or more builds of the app,
# interleaved (round 1: A B, round 2: A B, ...; or PAR=1: the builds of a run at the same time, each
# seeing the other's load). Each build runs from a copy of its once-app/target (jar + lib), so no
# build in the worktree touches it; each run in a folder of its own (its own embedded PostgreSQL
# and Kafka under .once/), on names of its own on the shared services (PostgreSQL schema / MariaDB
# database recovery_demo_<label>, RabbitMQ vhost recovery-demo-<label>; the cuts close the
# connections of that vhost only).
#
#   APPS="before=/tmp/rec-before after=/tmp/rec-after" ROUNDS=1 \
#     RUNS="table rabbit rabbit-cuts mariadb crash05 faults-table faults-rabbitmq faults-kafka verify-pg verify-mariadb" \
#     [PAR=1] [CUTS="3 8"] [OUT=/tmp/once-bench/recovery] bench/recovery.sh
#
# Make a copy of a build:  ./mvnw -q -B -DskipTests -pl once-app -am package &&
#   mkdir /tmp/rec-after && cp -r once-app/target/once-app.jar once-app/target/lib /tmp/rec-after/
# A quiet-window run (about 45 min on 2 quiet cores for one build, ROUNDS=1; three bench
# faults runs per transport are ROUNDS=3 of the faults-* runs alone):
#   APPS="after=/tmp/rec-after" RUNS="table rabbit rabbit-cuts mariadb crash05 verify-pg verify-mariadb" bench/recovery.sh
#   APPS="after=/tmp/rec-after" ROUNDS=3 RUNS="faults-table faults-rabbitmq faults-kafka" bench/recovery.sh
# Output in OUT: <run>-<label>-<n>.json (+ .err, + .cuts), one line per run in runs.txt (wall
# seconds, exit code, load average before -> after). bench/recovery-summary.py OUT LABEL prints the
# tables; bench/faults-pairs.py OUT BEFORE AFTER compares two builds' `bench faults` pairs.
set -uo pipefail
OUT=${OUT:-/tmp/once-bench/recovery}; mkdir -p "$OUT"
APPS=${APPS:?APPS=\"label=/copy/of/once-app/target ...\"}
ROUNDS=${ROUNDS:-1}
RUNS=${RUNS:-table rabbit rabbit-cuts mariadb crash05 verify-pg verify-mariadb}
PAR=${PAR:-0}
CUTS=${CUTS:-3 8} # seconds after the first connection at which the vhost's connections are cut
PG='jdbc:postgresql://127.0.0.1:5432/test?user=postgres'
MARIADB='jdbc:mariadb://127.0.0.1:3306/test?user=root'
LOG=$OUT/runs.txt

args() {
  local AMQP="amqp://guest:guest@127.0.0.1:5672/recovery-demo-$2" S=recovery_demo_$2
  case $1 in
    table)           echo "demo --events 400 --crash-rate 0.2 --duplicate-rate 0.2 --seed 23 --json" ;;
    rabbit)          echo "demo --transport rabbitmq --amqp $AMQP --events 3000 --crash-rate 0.1 --seed 3 --json" ;;
    rabbit-cuts)     echo "demo --transport rabbitmq --amqp $AMQP --db $PG --schema $S --force-shared --events 3000 --crash-rate 0.1 --seed 3 --json" ;;
    mariadb)         echo "demo --db $MARIADB --schema $S --force-shared --events 500 --crash-rate 0.15 --json" ;;
    crash05)         echo "demo --events 400 --crash-rate 0.5 --json" ;;
    faults-table)    echo "bench faults --transport table --json" ;;
    faults-rabbitmq) echo "bench faults --transport rabbitmq --amqp $AMQP --json" ;;
    faults-kafka)    echo "bench faults --transport kafka --json" ;;
    verify-pg)       echo "verify --db $PG --schema ${S}_verify --force-shared --kills 20 --json" ;;
    verify-mariadb)  echo "verify --db $MARIADB --schema ${S}_verify --force-shared --kills 20 --json" ;;
    *) echo "unknown run $1" >&2; exit 2 ;;
  esac
}

# Every connection of the run's vhost (and only of it) cut at each of $CUTS seconds after the
# demo's first connection to it (its start-up before, on a loaded machine, takes 5-30 s).
cuts() {
  local at=0 n=0 t waited=0
  until rabbitmqctl -q list_connections vhost 2>/dev/null | grep -qx "$1"; do
    sleep 0.5; waited=$((waited + 1)); [[ $waited -gt 600 ]] && { echo "no connection in 300 s"; return; }
  done
  echo "first connection at $(date -u +%T)"
  for t in $CUTS; do
    sleep $((t - at)); at=$t; n=$((n + 1))
    rabbitmqctl -q close_all_connections --vhost "$1" "recovery demo cut $n" >/dev/null 2>&1
    echo "cut $n at ${t}s after it ($(date -u +%T))"
  done
}

one() { # run label dir
  local run=$1 label=$2 app=$3 n=1 f dir up1 up2 start t0 t1 rc cutter=
  rabbitmqctl -q add_vhost "recovery-demo-$label" >/dev/null 2>&1
  rabbitmqctl -q set_permissions -p "recovery-demo-$label" guest '.*' '.*' '.*' >/dev/null 2>&1
  while [[ -e $OUT/$run-$label-$n.json ]]; do n=$((n+1)); done
  f=$OUT/$run-$label-$n
  : >"$f.json"
  dir=/tmp/once-recovery-$label; mkdir -p "$dir"
  up1=$(uptime | sed 's/.*average: //'); start=$(date -u +%T); t0=$(date +%s.%N)
  if [[ $run == rabbit-cuts ]]; then cuts "recovery-demo-$label" >"$f.cuts" & cutter=$!; fi
  # shellcheck disable=SC2046
  (cd "$dir" && timeout --kill-after=10 1800 java -cp "$app/once-app.jar:$app/lib/*" dev.once.app.Main \
     $(args "$run" "$label") >"$f.json" 2>"$f.err")
  rc=$?
  t1=$(date +%s.%N)
  [[ -n $cutter ]] && { kill "$cutter" 2>/dev/null; wait "$cutter" 2>/dev/null; }
  up2=$(uptime | sed 's/.*average: //')
  printf '%s %-15s %-8s rc=%s wall=%5.0fs par=%s load %s -> %s\n' "$start" "$run" "$label" "$rc" \
    "$(echo "$t1 - $t0" | bc)" "$PAR" "$up1" "$up2" | tee -a "$LOG"
}

echo "recovery: start $(date -u +%T); APPS=$APPS; $(uptime)" | tee -a "$LOG"
for round in $(seq 1 "$ROUNDS"); do
  for run in $RUNS; do
    for app in $APPS; do
      if [[ $PAR == 1 ]]; then one "$run" "${app%%=*}" "${app#*=}" & else one "$run" "${app%%=*}" "${app#*=}"; fi
    done
    wait
  done
done
echo "recovery: end $(date -u +%T); $(uptime)" | tee -a "$LOG"
