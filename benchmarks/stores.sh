#!/usr/bin/env bash
# The stores that keep a lock across a server's failure, each beside the peers' locks on the same kind of
# server, in one run: the uncontended cycle (FailoverStoreCycleBenchmarks, one thread) on PostgreSQL (Spring
# Integration's JdbcLockRegistry, ShedLock's JDBC provider), etcd (jetcd's lock service client, and the bare transactions as a reference) and ZooKeeper
# (Curator's InterProcessMutex, Spring Integration's ZookeeperLockRegistry), then the handoff to a waiter in
# another JVM on PostgreSQL (with the server's round trip as a reference), etcd and ZooKeeper (HandoffLatency). Writes benchmarks/results/stores/ and the stores'
# section of docs/PERFORMANCE.md (the rest of the page is rendered again, unchanged, from the results already
# there). About 20 minutes on 2 cores.
#
#   benchmarks/stores.sh
#   PASSES=2 benchmarks/stores.sh                       two forks per benchmark instead of four
#   STORES_JMH_ARGS="-wi 1 -i 1" benchmarks/stores.sh    further JMH arguments for every benchmark
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=benchmarks/results/stores
JAR=benchmarks/target/benchmarks.jar
PASSES=${PASSES:-4}
HANDOFF_LOCKS=(POSTGRES_STARTER POSTGRES_SPRING_INTEGRATION POSTGRES_SHEDLOCK POSTGRES_ROUND_TRIP POSTGRES_ACQUIRE_ROUND_TRIP
	ETCD_STARTER ETCD_JETCD_LOCK
	ZOOKEEPER_STARTER ZOOKEEPER_CURATOR_MUTEX ZOOKEEPER_SPRING_INTEGRATION ZOOKEEPER_VERSIONED_REFERENCE)
started=$(date +%s)

for command in etcd java python3; do
	command -v "$command" > /dev/null || { echo "$command is required" >&2; exit 1; }
done
[ -f /usr/share/java/zookeeper.jar ] || { echo "ZooKeeper is required (apt-get install -y zookeeper)" >&2; exit 1; }

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
jmh_in_passes "$OUT" FailoverStoreCycleBenchmarks "$PASSES" ${STORES_JMH_ARGS:-}

echo "== Handoff to a waiter in another JVM, on PostgreSQL, etcd and ZooKeeper"
echo "java -cp $JAR dev.lockstarter.benchmarks.HandoffLatency $OUT/handoff.json ${HANDOFF_LOCKS[*]}" >> "$OUT/commands-run.txt"
java -cp "$JAR" dev.lockstarter.benchmarks.HandoffLatency "$OUT/handoff.json" "${HANDOFF_LOCKS[@]}" \
	> "$OUT/handoff.log" 2>&1 || { tail -n 40 "$OUT/handoff.log" >&2; exit 1; }
grep -E ' p50 ' "$OUT/handoff.log"

cat /proc/loadavg > "$OUT/loadavg-end.txt"
echo "$(($(date +%s) - started))" > "$OUT/elapsed-seconds.txt"
if [ -z "${SKIP_RENDER:-}" ]; then
	python3 benchmarks/report.py render benchmarks/results docs/PERFORMANCE.md
	echo "== Wrote docs/PERFORMANCE.md; the run took $(cat "$OUT/elapsed-seconds.txt") s"
fi
