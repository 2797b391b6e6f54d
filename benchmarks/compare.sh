#!/usr/bin/env bash
# Compares this checkout's lock path with an earlier revision's, side by side in one run: the
# interceptor's cost, the lock cycle against the raw Lettuce floor at 1 and 8 threads, and the
# handoff latency of the blocking (and, when this checkout has it, the reactive) waiter. Each
# revision is measured with its own benchmarks module; the passes take turns between the two
# (base, head, head, base), so that a drift of the machine falls on both alike. About 35 minutes
# on 2 cores.
#
#   benchmarks/compare.sh <revision>            for example: benchmarks/compare.sh v0.1.0
#   PASSES=1 JMH_FORKS=1 benchmarks/compare.sh <revision>    a quicker, noisier run
#
# Writes benchmarks/results/compare/ (raw JSON) and prints a table of ratios (head / base).
#
# The same script compares other benchmarks: SUITE=kinds measures the permit and read-lock cycles on Redis
# and PostgreSQL, a place's renewal and the mutex cycle on PostgreSQL (SharedLockCycleBenchmarks,
# JdbcSharedLockCycleBenchmarks, JdbcLockCycleBenchmarks at one thread),
# without handoffs, into benchmarks/results/compare-kinds/. Both revisions then run this checkout's benchmark
# code, copied over the base's (they measure through public API only), so that only the library differs.
set -euo pipefail
cd "$(dirname "$0")/.."

BASE=${1:?usage: benchmarks/compare.sh <revision>}
SUITE=${SUITE:-cycle}
WORKTREE=benchmarks/target/compare-base
PASSES=${PASSES:-2}
JMH_FORKS=${JMH_FORKS:-2}
case "$SUITE" in
cycle)
	OUT=benchmarks/results/compare
	# The interceptor and the lock cycle of the starter and of its floor; no peers
	JMH_INCLUDE='InterceptorBenchmark|LockCycleBenchmarks\.(OneThread|EightThreads)\.(rawLettuce|lockTemplate)$'
	HANDOFFS=yes
	SAME_BENCHMARKS=no
	;;
kinds)
	OUT=benchmarks/results/compare-kinds
	JMH_INCLUDE='SharedLockCycleBenchmarks\.(permit|read)LockTemplate$|JdbcSharedLockCycleBenchmarks|JdbcLockCycleBenchmarks\.OneThread\.jdbcLockTemplate$'
	HANDOFFS=no
	SAME_BENCHMARKS=yes
	command -v pg_ctl > /dev/null || ls /usr/lib/postgresql/*/bin/pg_ctl > /dev/null 2>&1 \
		|| { echo "PostgreSQL is required (apt-get install -y postgresql)" >&2; exit 1; }
	;;
*)
	echo "SUITE is cycle or kinds, not $SUITE" >&2
	exit 1
	;;
esac

command -v redis-server > /dev/null || { echo "redis-server is required (apt-get install -y redis-server)" >&2; exit 1; }

mkdir -p "$OUT"
rm -f "$OUT"/*.json
base_commit=$(git rev-parse "$BASE^{commit}")
head_commit=$(git rev-parse HEAD)
if [ -n "$(git status --porcelain -- lock-core lock-store-redis lock-store-jdbc lock-spring-boot-autoconfigure benchmarks/src)" ]; then
	head_commit="$head_commit+changes"
fi

echo "== Building the benchmarks of $BASE ($base_commit)"
rm -rf "$WORKTREE"
git worktree prune
git worktree add --detach "$WORKTREE" "$base_commit" > /dev/null
trap 'git worktree remove --force "$WORKTREE" > /dev/null 2>&1 || true' EXIT
if [ "$SAME_BENCHMARKS" = yes ]; then
	rm -rf "$WORKTREE/benchmarks/src"
	cp -r benchmarks/src "$WORKTREE/benchmarks/src"
fi
(cd "$WORKTREE" && ./mvnw -q -B -P benchmarks -pl benchmarks -am package -Dmaven.test.skip=true)
echo "== Building the benchmarks of this checkout"
./mvnw -q -B -P benchmarks -pl benchmarks -am package -Dmaven.test.skip=true

python3 benchmarks/report.py wait-idle "${IDLE_WAIT:-60}"

measure() {
	local side=$1 jar=$2 pass=$3
	echo "== Pass $pass: $side"
	java -jar "$jar" -f "$JMH_FORKS" -rf json -rff "$OUT/$side-$pass-jmh.json" "$JMH_INCLUDE" > "$OUT/$side-$pass-jmh.log" 2>&1 \
		|| { tail -n 40 "$OUT/$side-$pass-jmh.log" >&2; exit 1; }
	[ "$HANDOFFS" = yes ] || return 0
	local locks=(STARTER)
	# The usage message lists the locks a revision's benchmark knows
	if { java -cp "$jar" dev.lockstarter.benchmarks.HandoffLatency 2>&1 || true; } | grep -q STARTER_REACTIVE; then
		locks+=(STARTER_REACTIVE)
	fi
	# 300 handoffs a pass, as a revision from before the count could be set measures
	java -Dhandoff.count=300 -cp "$jar" dev.lockstarter.benchmarks.HandoffLatency "$OUT/$side-$pass-handoff.json" "${locks[@]}"
	# Between warm JVMs too: HotSpot's optimizing compiler has taken each lock's per-handoff code
	java -Dhandoff.count=300 -Dhandoff.quickWarmUp=20000 -cp "$jar" dev.lockstarter.benchmarks.HandoffLatency \
		"$OUT/$side-$pass-warm.json" "${locks[@]}"
}

for pass in $(seq 1 "$PASSES"); do
	if [ $((pass % 2)) -eq 1 ]; then
		measure base "$WORKTREE/benchmarks/target/benchmarks.jar" "$pass"
		measure head benchmarks/target/benchmarks.jar "$pass"
	else
		measure head benchmarks/target/benchmarks.jar "$pass"
		measure base "$WORKTREE/benchmarks/target/benchmarks.jar" "$pass"
	fi
done

python3 benchmarks/compare.py "$OUT" "$BASE ($base_commit)" "$head_commit" | tee "$OUT/summary.md"
