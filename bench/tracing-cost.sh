#!/usr/bin/env bash
# Tracing's cost, same run (docs/PERFORMANCE.md, "Tracing"): `once bench tracing` runs Once's end-to-end pipeline (two
# hops, table queue, embedded PostgreSQL) with tracing off | request-only | sampled-out | sampled |
# on, each warmed up first, then ROUNDS rounds of every mode, the order turned each round (A B C D E,
# B C D E A, ...), each full-speed run followed by a paced one at 200 orders/s. `uptime` before and
# after. About 7 min on a quiet 2-core machine, 10-15 min at load 30-40. At the end the progress
# file gets each mode's comparisons, paired round by round: its rate over off's and over
# request-only's (sampled-out over request-only is Once's own share), the rounds it was the slower,
# and its CPU per order (bench JVM + PostgreSQL) over theirs, full speed and paced (the paced run's
# is the steadiest: every mode at the same orders/s). MODES may add sampled-out-no-context (Once's
# tracing without the unsampled context: what storing it costs).
# Usage: bench/tracing-cost.sh [out-prefix]   (default /tmp/once-bench/tracing-cost; ONCE_CP may
# point at a copy of once-app.jar + lib/*, else ./once builds itself first)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/once-bench/tracing-cost}"
mkdir -p "$(dirname "$out")"
if [[ -z "${ONCE_CP:-}" ]]; then
  ./once --version >/dev/null
fi
cp="${ONCE_CP:-once-app/target/once-app.jar:once-app/target/lib/*}"
{
  echo "start: $(uptime)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
} >"$out-progress.txt"
nice java -cp "$cp" dev.once.app.Main bench tracing \
  --modes "${MODES:-off,request-only,sampled-out,sampled,on}" --rounds "${ROUNDS:-8}" \
  --events "${EVENTS:-3000}" --warmup "${WARMUP:-3000}" --paced-rate 200 --paced-seconds 5 \
  --json >"$out-raw.json" 2>>"$out-progress.txt"
echo "end: $(uptime)" >>"$out-progress.txt"
# The comparisons (medians over rounds), one per line; a CLI older than them prints fewer.
python3 - "$out-raw.json" >>"$out-progress.txt" <<'PY' || true
import json, re, sys
j = json.load(open(sys.argv[1]))
pat = re.compile(r"_(ratio_|slower_than_|total_cpu_over_|paced_total_cpu_over_)|total_cpu_us_per_order_median$|wal_bytes_per_order_median$")
print("comparisons (medians over rounds, paired with off / request-only in the same round):")
for k, v in j.items():
    if pat.search(k):
        print(f"  {k} = {v}")
PY
