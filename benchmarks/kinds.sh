#!/usr/bin/env bash
# The uncontended cycle of a permit and of a read lock on Redis (SharedLockCycleBenchmarks): this starter's
# LockTemplate beside Redisson's RPermitExpirableSemaphore and RReadWriteLock, in one run. Writes
# benchmarks/results/kinds/ and prints the table that docs/lock-kinds.md shows. About 8 minutes on 2 cores.
#
#   benchmarks/kinds.sh
#   PASSES=2 benchmarks/kinds.sh                       two forks per benchmark instead of four
#   KINDS_JMH_ARGS="-wi 1 -i 1" benchmarks/kinds.sh    further JMH arguments for every benchmark
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=benchmarks/results/kinds
JAR=benchmarks/target/benchmarks.jar
PASSES=${PASSES:-4}
started=$(date +%s)

command -v redis-server > /dev/null || { echo "redis-server is required (apt-get install -y redis-server)" >&2; exit 1; }
command -v python3 > /dev/null || { echo "python3 is required" >&2; exit 1; }

mkdir -p "$OUT"
rm -f "$OUT"/*.json "$OUT"/*.log "$OUT"/*.txt

if [ -z "${SKIP_BUILD:-}" ]; then
	echo "== Building the benchmarks"
	echo "./mvnw -q -B -P benchmarks -pl benchmarks -am package -Dmaven.test.skip=true" >> "$OUT/commands-run.txt"
	./mvnw -q -B -P benchmarks -pl benchmarks -am package -Dmaven.test.skip=true
fi

python3 benchmarks/report.py wait-idle "${IDLE_WAIT:-60}"
python3 benchmarks/report.py machine > "$OUT/machine.json"

# shellcheck source=benchmarks/passes.sh
. benchmarks/passes.sh
# shellcheck disable=SC2086
jmh_in_passes "$OUT" SharedLockCycleBenchmarks "$PASSES" ${KINDS_JMH_ARGS:-}

cat /proc/loadavg > "$OUT/loadavg-end.txt"
echo "$(($(date +%s) - started))" > "$OUT/elapsed-seconds.txt"
python3 benchmarks/report.py kinds "$OUT"
