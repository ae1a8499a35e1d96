#!/usr/bin/env bash
# One worker's database connections made half-open in the middle of a run, and how long it takes
# until every order is processed once; then how long the worker takes to stop on SIGTERM.
#
#   bench/half-open/run.sh ONCE_DIR TRANSPORT [ORDERS]
#
# ONCE_DIR: a checkout whose ./once to run (a build before a change, or this one). TRANSPORT: table or
# rabbitmq (a vhost of its own, nf_halfopen, created and deleted here). The worker connects to
# the local PostgreSQL through blackhole_proxy.py (port 15432), in schema nf_halfopen; the
# producer and the checks connect directly. The orders are committed first; 3 s after the worker
# has started on that backlog (every thread busy, so connections are in the middle of statements)
# SIGUSR1 blackholes every connection the worker has open. Prints one result line: recovered_s (blackhole -> `once check`
# OK, or "no" after 180 s) and stop_s (SIGTERM -> exit, or "no" after 60 s, then SIGKILL).
set -u
ONCE_DIR=$1
TRANSPORT=$2
ORDERS=${3:-2000}
HERE=$(cd "$(dirname "$0")" && pwd)
SCHEMA=nf_halfopen
DIRECT="jdbc:postgresql://127.0.0.1:5432/test?user=postgres"
VIA="jdbc:postgresql://127.0.0.1:15432/test?user=postgres"
AMQP=()
if [ "$TRANSPORT" = rabbitmq ]; then
  rabbitmqctl add_vhost nf_halfopen >/dev/null 2>&1
  rabbitmqctl set_permissions -p nf_halfopen guest '.*' '.*' '.*' >/dev/null 2>&1
  AMQP=(--amqp amqp://guest:guest@127.0.0.1:5672/nf_halfopen)
fi
cd "$ONCE_DIR"
./once reset --db "$DIRECT" --schema $SCHEMA --transport "$TRANSPORT" "${AMQP[@]}" >/dev/null 2>&1
./once produce --db "$DIRECT" --schema $SCHEMA --events "$ORDERS" --threads 4 >/dev/null 2>&1
python3 "$HERE/blackhole_proxy.py" 15432 127.0.0.1 5432 >/tmp/halfopen-proxy.log 2>&1 &
PROXY=$!
sleep 0.5
./once worker --db "$VIA" --schema $SCHEMA --transport "$TRANSPORT" "${AMQP[@]}" --threads 2 \
  >/tmp/halfopen-worker.out 2>/tmp/halfopen-worker.err &
WORKER=$!
for _ in $(seq 1 120); do grep -q "running on" /tmp/halfopen-worker.err && break; sleep 0.5; done
sleep 3
kill -USR1 $PROXY
T0=$(date +%s.%N)
RECOVERED=no
if ./once check --db "$DIRECT" --schema $SCHEMA --events "$ORDERS" --wait 180 >/tmp/halfopen-check.out 2>&1; then
  RECOVERED=$(echo "$(date +%s.%N) - $T0" | bc)
fi
kill -TERM $WORKER
T1=$(date +%s.%N)
STOP=no
for _ in $(seq 1 600); do
  if ! kill -0 $WORKER 2>/dev/null; then STOP=$(echo "$(date +%s.%N) - $T1" | bc); break; fi
  sleep 0.1
done
[ "$STOP" = no ] && kill -9 $WORKER
kill $PROXY
echo "once=$ONCE_DIR transport=$TRANSPORT orders=$ORDERS $(grep blackholed /tmp/halfopen-proxy.log | head -1) recovered_s=$RECOVERED stop_s=$STOP load=\"$(uptime | sed 's/.*load average: //')\""
tail -2 /tmp/halfopen-check.out | sed 's/^/  check: /'
./once reset --db "$DIRECT" --schema $SCHEMA --transport "$TRANSPORT" "${AMQP[@]}" >/dev/null 2>&1
if [ "$TRANSPORT" = rabbitmq ]; then rabbitmqctl delete_vhost nf_halfopen >/dev/null 2>&1; fi
