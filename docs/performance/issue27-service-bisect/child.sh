#!/bin/bash
# The example service alone in a JVM of its own (ServiceRun, as `once bench e2e --service` starts
# it), for pool1.txt: child.sh transport events warmup pool [java options...]; RATE and PACED (s)
# set its paced run. E.g. for p in 14 24; do RATE=600 PACED=8 child.sh table 10000 2000 $p; done
here=$(cd "$(dirname "$0")/../../.." && pwd)
export ONCE_SERVICE_DB=${DB:-'jdbc:postgresql://127.0.0.1:5432/service?user=postgres'}
export ONCE_SERVICE_BROKER=${AMQP:-amqp://guest:guest@127.0.0.1:5672/service}
t=$1; n=$2; w=$3; pool=$4; shift 4
nice -n 5 java "$@" -cp "$here/once-app/target/once-app.jar:$here/once-app/target/lib/*" \
  dev.once.bench.e2e.ServiceRun "$t" "$n" 4 4 2 "$w" "${RATE:-0}" "${PACED:-0}" 16 900 "$pool"
