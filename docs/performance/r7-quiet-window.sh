#!/bin/bash
# Session 6's quiet window (docs/PERFORMANCE.md, round 7): the hop change before/after under faults,
# tracing's cost, the service path. /tmp/app-before and /tmp/app-after: copies of once-app/target
# (once-app.jar + lib) of the two builds. About 75 min on 2 quiet cores.
set -u
cd "$(dirname "$0")/../.."
echo "quiet7 start $(date -u +%T) $(uptime)"
APPS="b7=/tmp/app-before a7=/tmp/app-after" ROUNDS=${FAULT_ROUNDS:-2} \
  RUNS="${FAULT_RUNS:-faults-table faults-rabbitmq rabbit-cuts}" docs/performance/r4-recovery-run.sh
echo "faults done $(date -u +%T) $(uptime)"
ONCE_CP="/tmp/app-after/once-app.jar:/tmp/app-after/lib/*" docs/performance/tracing-cost.sh docs/performance/tracing-cost-r7
echo "tracing done $(date -u +%T) $(uptime)"
DB=embedded docs/performance/issue27-service.sh docs/performance/issue27-service-r7
echo "service done $(date -u +%T) $(uptime)"
