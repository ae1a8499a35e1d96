#!/bin/bash
# An ordered consumer on RabbitMQ against an unordered one (issue 40 item 7: >= 0.9), for one or two
# builds: `once bench --transport rabbitmq` and the same with --ordered, 5 000 events of distinct
# keys, pairs interleaved (U O, O U, ...), each build and mode in a RabbitMQ virtual host and a
# PostgreSQL schema of its own (a group's queue keeps its single active consumer and its ordered
# mark, so an unordered run after an ordered one in the same place would not be unordered).
#   APPS="before=/tmp/a after=/tmp/b" PAIRS=5 bench/ordered-rabbitmq-ab.sh [out-dir]
# (each a copy of once-app/target: once-app.jar and lib/; needs rabbitmqctl and psql on this
# machine; DB default jdbc:postgresql://127.0.0.1:5432/test?user=postgres). Prints
# ordered / unordered per pair and build; drop the vhosts and schemas (prefix ord_ab_) after.
set -u -f
out=${1:-/tmp/once-bench/ordered-ab}
mkdir -p "$out"
APPS=${APPS:?APPS=\"label=/copy/of/once-app/target ...\"} PAIRS=${PAIRS:-5}
DB=${DB:-jdbc:postgresql://127.0.0.1:5432/test?user=postgres}
place() { # label mode -> creates and names the vhost and schema
  local name="ord_ab_$1_$2"
  rabbitmqctl add_vhost "$name" >/dev/null 2>&1
  rabbitmqctl set_permissions -p "$name" guest '.*' '.*' '.*' >/dev/null
  psql "${DB#jdbc:}" -qc "CREATE SCHEMA IF NOT EXISTS $name"
  echo "$name"
}
run() { # label app mode pair
  local name ordered=""
  name=$(place "$1" "$3")
  [[ $3 == o ]] && ordered=--ordered
  echo "$(date -u +%T) $1 $3 pair $4: $(uptime | sed 's/.*average: //')" >>"$out/progress.txt"
  java -cp "$2/once-app.jar:$2/lib/*" dev.once.app.Main bench --json --events 5000 \
    --transport rabbitmq --amqp "amqp://guest:guest@127.0.0.1:5672/$name" \
    --db "$DB&currentSchema=$name" $ordered >"$out/$1-$3-$4.json" 2>>"$out/progress.txt"
}
for pair in $(seq 1 "$PAIRS"); do
  for app in $APPS; do
    label=${app%%=*} dir=${app#*=}
    if ((pair % 2)); then modes="u o"; else modes="o u"; fi
    for mode in $modes; do run "$label" "$dir" "$mode" "$pair"; done
  done
done
python3 - "$out" $APPS <<'PY'
import json, statistics, sys
out, apps = sys.argv[1], [a.split("=")[0] for a in sys.argv[2:]]
for label in apps:
    ratios, pair = [], 1
    while True:
        try:
            u = json.load(open(f"{out}/{label}-u-{pair}.json"))["once_eps"]
            o = json.load(open(f"{out}/{label}-o-{pair}.json"))["once_eps"]
        except (OSError, ValueError):
            break
        ratios.append(o / u)
        pair += 1
    if ratios:
        print(label, "ordered/unordered", " ".join(f"{r:.2f}" for r in ratios),
              f"median {statistics.median(ratios):.2f}")
PY
