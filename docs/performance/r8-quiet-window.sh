#!/bin/bash
# Session 7's quiet window (docs/PERFORMANCE.md, tracing round 8, and the trace column's cost under
# faults): tracing's cost on the build with the packed trace column (12 rounds, every mode and the
# opt-out), the same bench's sampled-out against request-only on the build before it, then `bench
# faults` (table, RabbitMQ, Kafka) and the RabbitMQ cuts demo, before and after, interleaved.
# BEFORE and AFTER: copies of once-app/target (once-app.jar + lib) of the two builds. About 35 min
# on 2 quiet cores.
set -u
cd "$(dirname "$0")/../.."
B=${BEFORE:-/tmp/app-b8} A=${AFTER:-/tmp/app-a8}
for app in "$B" "$A"; do
  [[ -f $app/once-app.jar ]] || { echo "no once-app.jar in $app (BEFORE/AFTER: copies of once-app/target)"; exit 2; }
done
echo "quiet8 start $(date -u +%T) $(uptime)"
ONCE_CP="$A/once-app.jar:$A/lib/*" ROUNDS=12 MODES=off,request-only,sampled-out,sampled,on,sampled-out-no-context \
  docs/performance/tracing-cost.sh docs/performance/tracing-cost-r8-after
echo "tracing (after) done $(date -u +%T) $(uptime)"
ONCE_CP="$B/once-app.jar:$B/lib/*" ROUNDS=8 MODES=request-only,sampled-out,sampled-out-no-context \
  docs/performance/tracing-cost.sh docs/performance/tracing-cost-r8-before
echo "tracing (before) done $(date -u +%T) $(uptime)"
APPS="b8=$B a8=$A" ROUNDS=${FAULT_ROUNDS:-2} \
  RUNS="${FAULT_RUNS:-faults-table faults-rabbitmq faults-kafka rabbit-cuts}" docs/performance/r4-recovery-run.sh
echo "quiet8 end $(date -u +%T) $(uptime)"
