#!/bin/bash
# The bisection of the service path (docs/PERFORMANCE.md, "Round 4, the service path"): runs, in
# ONE JVM, interleaved, the bench's Once end to end (OnceE2e, its pool of 48 or 14) and the example
# service (OrderService in process, pool 14 or 48), one hop, N orders each, R rounds; with
# -Dwin=K one service run per round printing K-order windows with the JIT's total compile time.
#   bisect.sh OUT transport N R variant...   variants: once48 once14 svc14 svc48 child14 child14w child48
#   e.g. bisect.sh hot.txt table 10000 8 once48 svc14 svc48 once14
#        JOPTS=-Dwin=2500 bisect.sh win.txt table 25000 1 svc14
# Environment: DB (default the local server's database service), AMQP (default vhost service).
# Needs ./once built (once-app/target). Runtime: about 5-15 s per variant and round.
set -eu
here=$(cd "$(dirname "$0")/../../.." && pwd)
cp="$here/once-app/target/once-app.jar:$here/once-app/target/lib/*"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
javac -d "$tmp" -cp "$cp" "$(dirname "$0")/Bisect.java"
export DB=${DB:-'jdbc:postgresql://127.0.0.1:5432/service?user=postgres'}
export AMQP=${AMQP:-amqp://guest:guest@127.0.0.1:5672/service}
out=$1; shift
nice -n 5 java ${JOPTS:-} -cp "$tmp:$cp" dev.once.bench.e2e.Bisect "$@" > "$out" 2>&1
