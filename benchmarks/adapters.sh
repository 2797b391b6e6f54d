#!/usr/bin/env bash
# The lock cycle of this starter's adapters (Spring Integration's LockRegistry, ShedLock's LockProvider,
# java.util.concurrent.locks.Lock) beside LockTemplate, Spring Integration's RedisLockRegistry and ShedLock's
# RedisLockProvider, in one run (AdapterCycleBenchmarks, 1 and 8 threads), with the Redis commands of
# one cycle of each, then the adapters' own cost on the in-memory store (AdapterOverheadBenchmark). Writes benchmarks/results/adapters/ and the adapters section of docs/PERFORMANCE.md
# (the rest of the page is rendered again, unchanged, from the results already there). About 13 minutes
# on 2 cores.
#
#   benchmarks/adapters.sh
#   PASSES=1 benchmarks/adapters.sh                       one fork per benchmark instead of two
#   ADAPTERS_JMH_ARGS="-wi 1 -i 1" benchmarks/adapters.sh  further JMH arguments for every benchmark
#
# benchmarks/run.sh runs it too, with SKIP_BUILD=1 SKIP_RENDER=1 (it has built, and renders at its end).
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=benchmarks/results/adapters
JAR=benchmarks/target/benchmarks.jar
PASSES=${PASSES:-2}
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

# shellcheck source=benchmarks/passes.sh
. benchmarks/passes.sh
# shellcheck disable=SC2086
jmh_in_passes "$OUT" AdapterCycleBenchmarks "$PASSES" ${ADAPTERS_JMH_ARGS:-}

echo "== JMH: AdapterOverheadBenchmark (the same cycles on the in-memory store: the adapters' own cost)"
# shellcheck disable=SC2086
run java -jar "$JAR" -prof gc -rf json -rff "$OUT/overhead.json" ${ADAPTERS_JMH_ARGS:-} 'AdapterOverheadBenchmark' \
	>> "$OUT/overhead.log" 2>&1 || { tail -n 40 "$OUT/overhead.log" >&2; exit 1; }
grep -E '^AdapterOverheadBenchmark\.[A-Za-z]+ +avgt' "$OUT/overhead.log"

cat /proc/loadavg > "$OUT/loadavg-end.txt"
echo "$(($(date +%s) - started))" > "$OUT/elapsed-seconds.txt"
if [ -z "${SKIP_RENDER:-}" ]; then
	python3 benchmarks/report.py render benchmarks/results docs/PERFORMANCE.md
	echo "== Wrote docs/PERFORMANCE.md; the run took $(cat "$OUT/elapsed-seconds.txt") s"
fi
