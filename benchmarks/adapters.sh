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

# Each benchmark runs once per pass, one fork each time, the passes taking the benchmarks in opposite
# orders: a drift of the machine's load over the run then falls on every benchmark alike, where one
# JMH run of two forks would measure the last benchmarks in another load than the first.
mapfile -t benchmarks < <(java -jar "$JAR" -l 'AdapterCycleBenchmarks' | grep '^dev\.')
[ "${#benchmarks[@]}" -gt 0 ] || { echo "No AdapterCycleBenchmarks in $JAR" >&2; exit 1; }
echo "java -jar $JAR -f 1 -prof gc -rf json -rff $OUT/jmh-<pass>-<benchmark>.json ${ADAPTERS_JMH_ARGS:+$ADAPTERS_JMH_ARGS }'^<benchmark>\$'   # each of the ${#benchmarks[@]} AdapterCycleBenchmarks, in $PASSES passes taking them in opposite orders" \
	>> "$OUT/commands-run.txt"
for pass in $(seq 1 "$PASSES"); do
	if [ $((pass % 2)) -eq 1 ]; then
		order=("${benchmarks[@]}")
	else
		order=()
		for ((i = ${#benchmarks[@]} - 1; i >= 0; i--)); do order+=("${benchmarks[i]}"); done
	fi
	for benchmark in "${order[@]}"; do
		echo "== Pass $pass of $PASSES: $benchmark"
		name=${benchmark#dev.lockstarter.benchmarks.AdapterCycleBenchmarks.}
		# shellcheck disable=SC2086
		java -jar "$JAR" -f 1 -prof gc -rf json -rff "$OUT/jmh-$pass-$name.json" ${ADAPTERS_JMH_ARGS:-} \
			"^${benchmark//./\\.}\$" >> "$OUT/jmh.log" 2>&1 || { tail -n 40 "$OUT/jmh.log" >&2; exit 1; }
		[ -s "$OUT/jmh-$pass-$name.json" ] || { echo "JMH wrote no results for $benchmark" >&2; exit 1; }
		grep -E '^AdapterCycleBenchmarks\.[A-Za-z]+\.[A-Za-z]+ +thrpt' "$OUT/jmh.log" | tail -n 1
	done
done

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
