#!/usr/bin/env bash
# Tracing's cost end to end (#26), on a checkout of 07d6893 (where e2e has --tracing): once bench e2e (2 hops, table queue, embedded PostgreSQL) with
# --tracing off / sampled (10 %) / on, interleaved, in one session on the same machine; raw JSON
# lines to docs/performance/tracing-e2e-raw.jsonl, uptime before each run beside it.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=docs/performance/tracing-e2e-raw.jsonl
: > "$out"
for round in 1 2; do
  for mode in off sampled on; do
    echo "# round $round tracing $mode $(date -u +%FT%TZ) $(uptime)" >> "$out"
    ./once bench e2e --hops 2 --events "${EVENTS:-5000}" --warmup 500 --latency-seconds 0 \
      --tracing "$mode" --json >> "$out"
  done
done
