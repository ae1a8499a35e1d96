#!/bin/bash
# Session 6's quiet window: hop before/after under faults, tracing's cost, the service path.
set -u
cd /work/main
echo "quiet7 start $(date -u +%T) $(uptime)"
APPS="b7=/tmp/app-before a7=/tmp/app-after" ROUNDS=${FAULT_ROUNDS:-2} \
  RUNS="${FAULT_RUNS:-faults-table faults-rabbitmq rabbit-cuts}" docs/performance/r4-recovery-run.sh
echo "faults done $(date -u +%T) $(uptime)"
ONCE_CP="/tmp/app-after/once-app.jar:/tmp/app-after/lib/*" docs/performance/tracing-cost.sh docs/performance/tracing-cost-r7
echo "tracing done $(date -u +%T) $(uptime)"
DB=embedded docs/performance/issue27-service.sh docs/performance/issue27-service-r7
echo "service done $(date -u +%T) $(uptime)"
