#!/bin/bash
# The end-to-end figures of docs/PERFORMANCE.md, for a quiet window: `once bench e2e --service` on
# the table queue, RabbitMQ and Kafka, one hop, interleaved, three rounds; raw JSON and stderr per
# run and a machine log (uptime before and after each run, pg_test_fsync) in OUT, then the table of
# medians printed from them by e2e-table.py.
#
#   bench/e2e-service.sh [OUT]        (default OUT: /tmp/once-bench/e2e-service)
#
# Environment: DB (a PostgreSQL URL; default the local server's database test; "embedded": the
# embedded PostgreSQL in .once/pg, whose connections do not count against a shared server's 100:
# a run holds 48 + 16), SCHEMA (created if missing; default perf), AMQP (its vhost must exist; default vhost perf), FSYNC_FILE (a file on
# the PostgreSQL disk for pg_test_fsync, e.g. /var/lib/postgresql/perf_fsync.tmp; unset: skipped;
# PG_TEST_FSYNC: its path). Kafka is the embedded broker.
# ROUNDS (default 3) and FIRST (default 1): the rounds run; TRANSPORTS (default "table rabbitmq
# kafka"): a round's transports, in order (a shorter window: FIRST=3 ROUNDS=3 TRANSPORTS="table rabbitmq"
# adds a third round of two of them to a run of two).
# Runtime: 9 runs of 3.5-5.5 min each on 2 quiet cores (each paced run, 8 s, goes twice since round 13) (the warm-ups repeat until the JIT has been
# quiet for --events orders, five rounds here, at most 40 rounds, each round followed by
# a pause of at most its own length while the JIT compiles what it queued: 1-5 s in all in loaded
# runs), about 30-45 min; under a load of 30-50 one run took 5-9 min. To see the service's
# JIT: ONCE_SERVICE_JAVA_OPTS (JVM options for its JVM alone, e.g. -XX:+PrintCompilation).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/once-bench/e2e-service}
mkdir -p "$out"
DB=${DB:-'jdbc:postgresql://127.0.0.1:5432/test?user=postgres'}
SCHEMA=${SCHEMA:-perf}
AMQP=${AMQP:-amqp://guest:guest@127.0.0.1:5672/perf}
machine=$out/machine.txt
{ date -u; uptime; nproc; git -C "$here" log --oneline -1; } > "$machine"
if [[ -n "${FSYNC_FILE:-}" ]]; then
  "${PG_TEST_FSYNC:-/usr/lib/postgresql/15/bin/pg_test_fsync}" -s 2 -f "$FSYNC_FILE" > "$out/pg_test_fsync.txt" 2>&1
  rm -f "$FSYNC_FILE"
fi
db=(--db "$DB" --schema "$SCHEMA")
[[ $DB == embedded ]] && db=()
for i in $(seq "${FIRST:-1}" "${ROUNDS:-3}"); do
  for t in ${TRANSPORTS:-table rabbitmq kafka}; do
    echo "$t $i start $(date -u +%T) $(uptime)" >> "$machine"
    nice "$here/once" bench e2e "${db[@]}" --transport "$t" --amqp "$AMQP" \
      --hops 1 --events 10000 --latency-seconds 8 --warmup 2000 --service --json \
      > "$out/e2e-$t-$i.json" 2> "$out/e2e-$t-$i.err"
    echo "$t $i end $(date -u +%T) exit $? $(uptime)" >> "$machine"
  done
done
date -u >> "$machine"
python3 "$here/bench/e2e-table.py" "$out" e2e
