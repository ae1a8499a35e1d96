#!/usr/bin/env bash
# The cost of IdempotencyFilter on a trivial endpoint (one INSERT), same run, same server, phases
# interleaved per round: without the filter, with it and new keys, with it replaying one key.
# Embedded PostgreSQL (fsync and synchronous_commit on), embedded Tomcat, JDK HttpClient.
# Usage: bench/http-idempotency.sh [clients] [seconds] [rounds]   (default 8 10 3)
set -euo pipefail
cd "$(dirname "$0")/.."
nice ./mvnw -B -q -ntp -pl once-web -am -DskipTests package dependency:build-classpath \
  -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test >/dev/null
uptime
exec nice java -cp "once-web/target/test-classes:once-web/target/classes:$(cat once-web/target/bench.cp)" \
  dev.once.web.bench.HttpBench "${1:-8}" "${2:-10}" "${3:-3}"
