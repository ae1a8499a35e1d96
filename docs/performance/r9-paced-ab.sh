#!/bin/bash
# Session 8 (issue 27): before/after of engine changes on the one-hop pipeline, paced at a fixed
# rate (RATE, default 400 orders/s) so that both builds' paced runs and their ceiling C get the same
# load. Builds are copies of once-app/target (jar + lib); even rounds run the builds in reverse order
# (a build that runs second in a pair ran slower on this machine). Each run in a folder of its own
# (its own embedded PostgreSQL); RabbitMQ vhost perf. Summary: r9-paced-summary.py OUT.
#   WARMUP=0 EVENTS=20000 r9-paced-ab.sh OUT "b9=/copy/before a10=/copy/after" "rabbitmq table" 2
# usage: r9-paced-ab.sh OUT "label=dir ..." "transports" ROUNDS
# A label's own bench flags, if any, in EXTRA_<label> (one build, several settings):
#   EXTRA_L0="--batch-linger-ms 0" EXTRA_L1="--batch-linger-ms 1" r9-paced-ab.sh OUT "L0=/d L1=/d" ...
set -u
out=$1; apps=$2; transports=$3; rounds=$4
mkdir -p "$out"
for i in $(seq 1 $rounds); do
  list=$apps
  if (( i % 2 == 0 )); then list=$(echo $apps | tr ' ' '\n' | tac | tr '\n' ' '); fi
  for t in $transports; do
    for app in $list; do
      label=${app%%=*}; dir=${app#*=}; extra_var=EXTRA_$label; extra=${!extra_var:-}
      run=$out/$t-$label-$i; mkdir -p $run.d
      echo "$t $label $i start $(date -u +%T) $(cat /proc/loadavg)" >> $out/log.txt
      (cd $run.d && java -cp "$dir/once-app.jar:$dir/lib/*" dev.once.app.Main bench e2e --transport $t \
        --amqp amqp://guest:guest@127.0.0.1:5672/perf --hops 1 --events ${EVENTS:-10000} --latency-seconds 8 \
        --latency-rate ${RATE:-400} --warmup ${WARMUP:-2000} $extra --json > $run.json 2> $run.err)
      echo "$t $label $i end $(date -u +%T) exit $? $(cat /proc/loadavg)" >> $out/log.txt
    done
  done
done
