#!/bin/bash
# Producers alone, raw JDBC against Once, in one JVM per build, builds alternating (two passes):
#   docs/performance/r11-producers/ab.sh OUT before=/work/ab/b12 after=/work/ab/a13
# Each build dir holds a copy of once-app/target (once-app.jar + lib). ProdBisect.java
# (docs/performance/r10-producers/) compiled into /tmp/pb against the app's classpath:
#   javac -d /tmp/pb -cp "once-app/target/once-app.jar:$(ls once-app/target/lib/*.jar | tr '\n' ':')" docs/performance/r10-producers/ProdBisect.java
# DB: a PostgreSQL URL whose schema has Once's tables (`once schema apply --schema perf`).
# Summary: summary.py OUT (rounds 1-4 of each JVM; round 0 is the JIT's).
out=$1; shift
: "${DB:=jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=perf}"
for pass in 1 2; do
  for spec in "$@"; do
    b=${spec%%=*}; d=${spec#*=}
    CP="/tmp/pb:$d/once-app.jar:$(ls "$d"/lib/*.jar | tr '\n' ':')"
    echo "== $b pass $pass $(date +%T)" >> "$out"
    DB=$DB timeout 600 java -cp "$CP" dev.once.bench.e2e.ProdBisect table 10000 5 raw once 2>&1 \
      | grep -E "^round|median" >> "$out"
  done
done
