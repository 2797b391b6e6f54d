#!/usr/bin/env bash
# The lock cycle of this starter's adapters (Spring Integration's LockRegistry, ShedLock's LockProvider,
# java.util.concurrent.locks.Lock) beside LockTemplate, Spring Integration's RedisLockRegistry and ShedLock's
# RedisLockProvider, in one JMH run (AdapterCycleBenchmarks, 1 and 8 threads), with the Redis commands of
# one cycle of each. Writes benchmarks/results/adapters/ and the adapters section of docs/PERFORMANCE.md
# (the rest of the page is rendered again, unchanged, from the results already there). About 10 minutes
# on 2 cores.
#
#   benchmarks/adapters.sh
#   ADAPTERS_JMH_ARGS="-f 1" benchmarks/adapters.sh      any further JMH arguments (here: one fork)
#
# benchmarks/run.sh runs it too, with SKIP_BUILD=1 SKIP_RENDER=1 (it has built, and renders at its end).
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=benchmarks/results/adapters
JAR=benchmarks/target/benchmarks.jar
started=$(date +%s)

command -v redis-server > /dev/null || { echo "redis-server is required (apt-get install -y redis-server)" >&2; exit 1; }
command -v python3 > /dev/null || { echo "python3 is required" >&2; exit 1; }

mkdir -p "$OUT"
rm -f "$OUT"/*.json "$OUT"/*.log "$OUT"/*.txt

run() {
	echo "$*" >> "$OUT/commands-run.txt"
	"$@"
}

if [ -z "${SKIP_BUILD:-}" ]; then
	echo "== Building the benchmarks"
	run ./mvnw -q -B -P benchmarks -pl benchmarks -am package -Dmaven.test.skip=true
fi

python3 benchmarks/report.py wait-idle "${IDLE_WAIT:-60}"
python3 benchmarks/report.py machine > "$OUT/machine.json"

echo "== Counting Redis commands per cycle of the adapters and of what they are compared with"
run java -cp "$JAR" dev.lockstarter.benchmarks.CommandsPerCycle "$OUT/commands.json" \
	LOCK_TEMPLATE LOCK_REGISTRY_ADAPTER LOCK_PROVIDER_ADAPTER LEASE_LOCK SPRING_INTEGRATION SHEDLOCK SHEDLOCK_SAFE_UPDATE

echo "== JMH: AdapterCycleBenchmarks"
# shellcheck disable=SC2086
run java -jar "$JAR" -prof gc -rf json -rff "$OUT/jmh.json" ${ADAPTERS_JMH_ARGS:-} 'AdapterCycleBenchmarks' 2>&1 | tee "$OUT/jmh.log"
[ -s "$OUT/jmh.json" ] || { echo "JMH wrote no results" >&2; exit 1; }

cat /proc/loadavg > "$OUT/loadavg-end.txt"
echo "$(($(date +%s) - started))" > "$OUT/elapsed-seconds.txt"
if [ -z "${SKIP_RENDER:-}" ]; then
	python3 benchmarks/report.py render benchmarks/results docs/PERFORMANCE.md
	echo "== Wrote docs/PERFORMANCE.md; the run took $(cat "$OUT/elapsed-seconds.txt") s"
fi
