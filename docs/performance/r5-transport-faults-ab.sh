#!/bin/bash
# Before/after of the transport recovery changes of round 5 (issue 22): `once bench faults` on
# RabbitMQ and on Kafka, the baseline and this checkout interleaved (B A B A ...), raw JSON kept.
#
#   docs/performance/r5-transport-faults-ab.sh BASE_CHECKOUT [PAIRS] [DB_URL] [AMQP_URI]
#
# BASE_CHECKOUT: a checkout of the commit before the change with the bench fix cherry-picked
# (git worktree add --detach /tmp/base 57c068f && git -C /tmp/base cherry-pick 2f7461b), so that
# both sides run the same bench. PAIRS default 3. DB_URL: a PostgreSQL database of your own
# (default jdbc:postgresql://127.0.0.1:5432/kafka?user=postgres); AMQP_URI: a vhost of your own
# (default amqp://guest:guest@127.0.0.1:5672/kafka). Kafka: each side's embedded broker.
# Writes docs/performance/r5-transport-faults/<transport>-<base|new>-<i>.{json,err,uptime} and
# prints the medians. About 70-120 s per run at load 20-40: 3 pairs x 2 transports ~ 15 min.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
base="$(cd "$1" && pwd)"
pairs="${2:-3}"
db="${3:-jdbc:postgresql://127.0.0.1:5432/kafka?user=postgres}"
amqp="${4:-amqp://guest:guest@127.0.0.1:5672/kafka}"
out="$here/docs/performance/r5-transport-faults"
mkdir -p "$out"

run() { # side dir transport i
  local f="$out/$3-$1-$4"
  uptime > "$f.uptime"
  (cd "$2" && nice -n 5 ./once bench faults --transport "$3" --db "$db" --amqp "$amqp" --json \
    > "$f.json" 2> "$f.err") || echo "$f: exit $?" >&2
  uptime >> "$f.uptime"
}

for transport in rabbitmq kafka; do
  done_before=$(ls "$out/$transport"-base-*.json 2>/dev/null | wc -l) # a second call adds runs
  for i in $(seq $((done_before + 1)) $((done_before + pairs))); do
    run base "$base" "$transport" "$i"
    run new "$here" "$transport" "$i"
  done
done

python3 - "$out" <<'EOF'
import glob, json, statistics, sys
out = sys.argv[1]
for transport in ("rabbitmq", "kafka"):
    for side in ("base", "new"):
        runs = []
        for f in sorted(glob.glob(f"{out}/{transport}-{side}-*.json")):
            try:
                runs.append(json.load(open(f)))
            except ValueError:
                print(f"{f}: no JSON")
        if not runs:
            continue
        ratios = {}
        for r in runs:
            for k, v in r["faults_ratio"].items():
                ratios.setdefault(k, []).append(v)
        eps = statistics.median(r["eps_without_faults"] for r in runs)
        dups = sum(r["duplicate_effects"] for r in runs)
        cells = ", ".join(f"{k} {statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})"
                          for k, v in ratios.items())
        print(f"{transport:8} {side:4} runs {len(runs)}: no faults {eps:.0f}/s; faults_ratio "
              f"median (min-max): {cells}; duplicate effects {dups}")
EOF
