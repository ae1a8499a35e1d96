#!/usr/bin/env bash
# Tracing's cost end to end, interleaved A B A B: once bench e2e --tracing off | sampled-out, two
# hops, table queue, embedded PostgreSQL; then one sampled (10 %) run. `uptime` before each run.
# Usage: docs/performance/tracing-e2e-r2.sh [events] [out.jsonl]   (from the repository root,
# after ./once has built once-app; ONCE_CP may point at a copy of once-app.jar + lib/*)
set -euo pipefail
cd "$(dirname "$0")/../.."
events="${1:-3000}"
out="${2:-docs/performance/tracing-e2e-r2-raw.jsonl}"
cp="${ONCE_CP:-once-app/target/once-app.jar:once-app/target/lib/*}"
: >"$out"
for mode in ${MODES:-off sampled-out off sampled-out sampled}; do
  echo "{\"mode\":\"$mode\",\"uptime\":\"$(uptime)\"}" >>"$out"
  nice java -cp "$cp" dev.once.app.Main bench e2e --hops 2 --events "$events" --warmup 500 \
    --latency-seconds 0 --tracing "$mode" --json >>"$out" 2>>"${out%.jsonl}-progress.txt"
done
echo "{\"end\":\"$(uptime)\"}" >>"$out"
