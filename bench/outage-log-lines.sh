#!/usr/bin/env bash
# What a `once worker` logs through connection faults (docs/OPERATING.md: an outage is a few log
# lines, not stack traces).
#   bench/outage-log-lines.sh ONCE_CHECKOUT LABEL table|rabbitmq
# A producer commits 3000 orders at 100/s straight to the local PostgreSQL; one worker (relays and
# consumers) reaches the database through a TCP proxy of its own (socat), and RabbitMQ through a
# second one, in a vhost of its own. Once 300 events are processed:
#   table:    every database connection is reset and refused for 8 s, twice, 15 s apart;
#   rabbitmq: rabbitmqctl close_all_connections -p VHOST; 10 s later the AMQP proxy is frozen
#             (SIGSTOP) for 30 s, past the 10 s AMQP heartbeat; 10 s later close_all_connections.
# Then the worker drains everything and is stopped (SIGTERM). Writes LABEL-MODE.err (the worker's
# stderr) to $OUT (default /tmp/once-bench/log-lines) and prints one summary line.
set -uo pipefail
once_dir=$1 label=$2 mode=$3
out="${OUT:-/tmp/once-bench/log-lines}"
mkdir -p "$out"
err="$out/$label-$mode.err"
pg_port=35431 amqp_port=35671
vhost="cifix-logs-$label"
schema="cifix_logs_$label"
direct="jdbc:postgresql://127.0.0.1:5432/test?user=postgres"
sql() { psql -qtA -h 127.0.0.1 -U postgres test -c "$1" 2>/dev/null; }
proxy() { # port target: a socat in a process group of its own; prints the group id
  setsid socat TCP-LISTEN:"$1",fork,reuseaddr TCP:"$2" </dev/null >/dev/null 2>&1 &
  echo $!
}
cutproxy() { kill -TERM -- "-$1" 2>/dev/null; sleep 0.2; kill -KILL -- "-$1" 2>/dev/null; }
markers() { # the demo's markers (warehouse and notifier); a busy server may refuse a session: again
  local n
  for _ in 1 2 3; do n=$(sql "SELECT count(*) FROM $schema.once_inbox") && [[ -n $n ]] && { echo "$n"; return; }; sleep 1; done
  echo 0
}

sql "DROP SCHEMA IF EXISTS $schema CASCADE"
(cd "$once_dir" && ./once reset --db "$direct" --schema "$schema" --force-shared) >/dev/null 2>&1 ||
  (cd "$once_dir" && ./once reset --db "$direct" --schema "$schema") >/dev/null
worker=(worker --db "jdbc:postgresql://127.0.0.1:$pg_port/test?user=postgres" --schema "$schema")
if [[ $mode == rabbitmq ]]; then
  rabbitmqctl -q add_vhost "$vhost" >/dev/null
  rabbitmqctl -q set_permissions -p "$vhost" guest '.*' '.*' '.*' >/dev/null
  amqp=$(proxy $amqp_port 127.0.0.1:5672)
  worker+=(--transport rabbitmq --amqp "amqp://guest:guest@127.0.0.1:$amqp_port/$vhost")
fi
pg=$(proxy $pg_port 127.0.0.1:5432)
sleep 0.5
start=$(date +%s)
(cd "$once_dir" && exec ./once "${worker[@]}") >/dev/null 2>"$err" &
wpid=$!
(cd "$once_dir" && exec ./once produce --db "$direct" --schema "$schema" --events 3000 --rate 100) \
  >/dev/null 2>"/tmp/$label-$mode.producer.err" &
until [[ $(markers) -ge 300 ]]; do sleep 0.5; done
if [[ $mode == table ]]; then
  for i in 1 2; do
    cutproxy "$pg"; sleep 8; pg=$(proxy $pg_port 127.0.0.1:5432); sleep 15
  done
else
  rabbitmqctl -q close_all_connections -p "$vhost" "outage-log-lines: cut 1" >/dev/null
  sleep 10
  pkill -STOP -g "$amqp"; sleep 30; pkill -CONT -g "$amqp"
  sleep 10
  rabbitmqctl -q close_all_connections -p "$vhost" "outage-log-lines: cut 2" >/dev/null
fi
deadline=$(($(date +%s) + 180))
until [[ $(markers) -ge 6000 || $(date +%s) -gt $deadline ]]; do sleep 1; done
drained=$(($(date +%s) - start))
done_markers=$(markers)
kill -TERM $wpid; wait $wpid
cutproxy "$pg"
if [[ $mode == rabbitmq ]]; then
  cutproxy "$amqp"
  rabbitmqctl -q delete_vhost "$vhost" >/dev/null
fi
sql "DROP SCHEMA IF EXISTS $schema CASCADE"
lines=$(wc -l <"$err")
traces=$(grep -cE '^\s+at |^Caused by|^\s+\.\.\. [0-9]+ ' "$err")
warn=$(grep -c ' WARN ' "$err")
error=$(grep -c ' ERROR ' "$err")
info=$(grep -c ' INFO ' "$err")
echo "$label $mode markers=$done_markers/6000 in ${drained}s stderr_lines=$lines trace_lines=$traces WARN=$warn ERROR=$error INFO=$info load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
