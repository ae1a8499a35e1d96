#!/bin/bash
# Tracing's cost, two builds against each other, with long rounds: 10 000 orders a round, not 3 000
# (at ~1 800 orders/s a round of 3 000 lasts under 2 s and single rounds spread +-25 %), 16 rounds
# of off, request-only and sampled-out, no paced run (its CPU per order is the idle polls', not the
# orders'). Each build in a fresh folder of its own, so each gets a fresh embedded PostgreSQL: a
# build refuses a schema a newer one migrated. Builds interleaved in blocks of ROUNDS/BLOCKS rounds:
# before, after, before, after.
#   BEFORE=/tmp/app-before AFTER=/tmp/app-after bench/tracing-ab.sh [out-prefix]
# (each a copy of once-app/target: once-app.jar and lib/; out-prefix default /tmp/once-bench/tracing-ab)
# EXTRA adds options to the bench, e.g. EXTRA="--transport rabbitmq" (ROUNDS, BLOCKS, EVENTS and
# MODES too).
set -u
out=${1:-/tmp/once-bench/tracing-ab}
mkdir -p "$(dirname "$out")"
B=${BEFORE:?BEFORE=/copy/of/once-app/target} A=${AFTER:?AFTER=/copy/of/once-app/target}
ROUNDS=${ROUNDS:-16} BLOCKS=${BLOCKS:-2} EVENTS=${EVENTS:-10000}
MODES=${MODES:-off,request-only,sampled-out}
run() { # label app block
  local dir=/tmp/tracing-long-$1-$$
  mkdir -p "$dir"
  echo "$(date -u +%T) $1 block $3: $(uptime | sed 's/.*average: //')" >>"$out-progress.txt"
  (cd "$dir" && nice java -cp "$2/once-app.jar:$2/lib/*" dev.once.app.Main bench tracing \
    --modes "$MODES" --rounds $((ROUNDS / BLOCKS)) --events "$EVENTS" --warmup 5000 \
    --paced-seconds 0 ${EXTRA:-} --json) >"$out-$1-$3.json" 2>>"$out-progress.txt"
}
echo "start $(date -u +%T) $(uptime)" >"$out-progress.txt"
for block in $(seq 1 "$BLOCKS"); do
  run before "$B" "$block"
  run after "$A" "$block"
done
echo "end $(date -u +%T) $(uptime)" >>"$out-progress.txt"
