#!/bin/bash
# Scratch runner of docs/performance/wake-r7-table-counts.txt: builds with the probe patch copied to
# /tmp/p-before and /tmp/p-after (once-app.jar + lib/), runs in /tmp/runs/<TAG>/<variant>/.
# usage: rounds3.sh TAG N "variants" PREFIX... -- extra args ; variants: b a t w r c m (see below)
TAG=$1; N=$2; VARS=($3); shift 3
PRE=(); while [[ $1 != -- ]]; do PRE+=("$1"); shift; done; shift
for i in $(seq 1 $N); do
  k=$(( (i-1) % ${#VARS[@]} ))
  ORDER=("${VARS[@]:$k}" "${VARS[@]:0:$k}")
  for v in "${ORDER[@]}"; do
    case $v in
      b) app=before; props=();;
      a) app=after; props=();;
      t) app=after; props=(-Dprobe.wakeAll=true -Dprobe.noResignal=true -Dprobe.composed=true -Dprobe.markersComposed=true);;
      w) app=after; props=(-Dprobe.wakeAll=true);;
      r) app=after; props=(-Dprobe.noResignal=true);;
      c) app=after; props=(-Dprobe.composed=true);;
      m) app=after; props=(-Dprobe.markersComposed=true);;
      x) app=after; props=(-Dprobe.wakeAll=true -Dprobe.noResignal=true);;
      y) app=after; props=(-Dprobe.composed=true -Dprobe.markersComposed=true);;
    esac
    d=/tmp/runs/$TAG/$v; mkdir -p $d; cd $d
    "${PRE[@]}" java "${props[@]}" -cp "/tmp/p-$app/once-app.jar:/tmp/p-$app/lib/*" dev.once.app.Main bench faults --transport table --json "$@" > $v$i.json 2> $v$i.err
    echo "$TAG $v $i rc=$? $(date +%T) $(cat /proc/loadavg)" >> /tmp/runs/log.txt
  done
done
