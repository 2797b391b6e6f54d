#!/usr/bin/env bash
# The stores whose expiry no application server's wall clock decides any longer, measured:
#
#   compare    the uncontended cycle (ClockStoreCycleBenchmarks, one thread) and the handoff to a waiter in
#              another JVM (HandoffLatency) on etcd, ZooKeeper, Memcached and DynamoDB Local, on a base
#              revision and on this checkout's HEAD side by side in one run, in passes that take turns
#              (base, head, head, base). About 18 minutes on 2 cores.
#   takeover   the crashed-holder takeover delay per store (TakeoverDelay), on HEAD. About 4 minutes with 12 kills per store.
#   loss       the time from a lease's local deadline and from the store's expiry to the cancellation of an
#              onLeaseLost = CANCEL method, with renewal off and with renewals failing, on Redis and in-memory
#              (LossDetectionLatency), on HEAD and, in fewer trials, on the base. About 6 minutes.
#   report     the summary (benchmarks/results/clock/summary.md) and docs/PERFORMANCE.md, rendered again.
#
#   benchmarks/clock.sh [STEP ...]                  every step, in this order, by default
#   BASE=2eeb541 PASSES=4 benchmarks/clock.sh compare
#   KILLS=12 benchmarks/clock.sh takeover           kills per store
#   TRIALS=40 BASE_TRIALS=8 benchmarks/clock.sh loss
#   OUT=benchmarks/results/clock/handoff-recheck CYCLES=0 HANDOFF_LOCKS="ETCD_STARTER ZOOKEEPER_STARTER" \
#       benchmarks/clock.sh compare                 the handoffs alone, again (report/clock.py shows that run too)
#
# Each revision is built with the benchmarks module of this checkout (its sources are the same on both
# sides; the library modules are the revision's), from `git archive` copies under benchmarks/target/clock/,
# so that neither this checkout's working tree nor ~/.m2 is touched. HEAD means the last commit: changes not
# committed yet are not measured. The DynamoDB store is measured only once its change is committed (a HEAD
# that differs from the base in lock-store-dynamodb/src/main). Before a step starts, the script waits up to
# LOAD_WAIT seconds (900) for a one-minute load average below LOAD_BELOW (1.5), then runs anyway; the load
# at every start and end is kept in benchmarks/results/clock/load.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

BASE=${BASE:-2eeb541}
OUT=${OUT:-benchmarks/results/clock}
TREES=benchmarks/target/clock
PASSES=${PASSES:-4}
KILLS=${KILLS:-12}
TRIALS=${TRIALS:-40}
BASE_TRIALS=${BASE_TRIALS:-8}
LOAD_BELOW=${LOAD_BELOW:-1.5}
LOAD_WAIT=${LOAD_WAIT:-900}
STEPS=("$@")
[ ${#STEPS[@]} -gt 0 ] || STEPS=(compare takeover loss report)

for command in redis-server memcached etcd java python3; do
	command -v "$command" > /dev/null || { echo "$command is required" >&2; exit 1; }
done

mkdir -p "$OUT"
base_commit=$(git rev-parse "$BASE^{commit}")
head_commit=$(git rev-parse HEAD)
dynamodb_committed() {
	! git diff --quiet "$base_commit" "$head_commit" -- lock-store-dynamodb/src/main
}

# The commands of the running step, in commands-<step>.txt
record() {
	echo "$*" >> "$OUT/commands-$step.txt"
}

load_mark() {
	echo "$(date -u +%FT%TZ) $1: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/load.txt"
}

wait_for_load() {
	local waited=0
	while awk -v limit="$LOAD_BELOW" '{ exit !($1 >= limit) }' /proc/loadavg && [ "$waited" -lt "$LOAD_WAIT" ]; do
		[ $((waited % 60)) -eq 0 ] && echo "Load average $(cut -d' ' -f1 /proc/loadavg), waiting for < $LOAD_BELOW ..."
		sleep 10
		waited=$((waited + 10))
	done
	echo "$(date -u +%FT%TZ) waited ${waited} s for the load" >> "$OUT/load.txt"
}

# A copy of a revision with this checkout's benchmarks module, built; prints the benchmarks jar
build_tree() {
	local side=$1 commit=$2 tree=$TREES/$1
	if [ ! -f "$tree/.commit" ] || [ "$(cat "$tree/.commit")" != "$commit" ]; then
		echo "== Copying $side ($commit)" >&2
		rm -rf "$tree"
		mkdir -p "$tree"
		git archive "$commit" | tar -x -C "$tree"
		echo "$commit" > "$tree/.commit"
	fi
	if [ ! -f "$tree/benchmarks/target/benchmarks.jar" ] \
		|| [ -n "$(find benchmarks/pom.xml benchmarks/src -newer "$tree/benchmarks/target/benchmarks.jar" -print -quit)" ]; then
		echo "== Building the benchmarks of $side ($commit)" >&2
		rm -rf "$tree/benchmarks/src"
		cp -r benchmarks/pom.xml benchmarks/src "$tree/benchmarks/"
		(cd "$tree" && ./mvnw -o -q -B -P benchmarks -pl benchmarks -am package -Dmaven.test.skip=true \
			-Dcheckstyle.skip -Dspring-javaformat.skip=true -Djacoco.skip=true) > "$TREES/$side-build.log" 2>&1 \
			|| { tail -n 40 "$TREES/$side-build.log" >&2; exit 1; }
	fi
	echo "$tree/benchmarks/target/benchmarks.jar"
}

base_jar=$(build_tree base "$base_commit")
head_jar=$(build_tree head "$head_commit")
{
	echo "base: $BASE ($base_commit)"
	echo "head: HEAD ($head_commit)"
	if dynamodb_committed; then
		echo "dynamodb: committed, measured"
	else
		echo "dynamodb: the store's change is not committed at HEAD: left out of the comparison and the takeover delay"
	fi
	[ -z "$(git status --porcelain -- lock-core lock-store-etcd lock-store-zookeeper lock-store-memcached lock-store-dynamodb lock-store-redis lock-store-jdbc)" ] \
		|| echo "working tree: changes not committed in the library modules, not measured"
} > "$OUT/revisions.txt"
python3 benchmarks/report.py machine > "$OUT/machine.json"

compare() {
	local cycles=(etcdLockTemplate zooKeeperLockTemplate memcachedLockTemplate)
	local locks=(ETCD_STARTER ZOOKEEPER_STARTER MEMCACHED_STARTER)
	if dynamodb_committed; then
		cycles+=(dynamoDbLockTemplate)
		locks+=(DYNAMODB_STARTER)
	fi
	[ -z "${HANDOFF_LOCKS:-}" ] || read -r -a locks <<< "$HANDOFF_LOCKS"
	local pattern="ClockStoreCycleBenchmarks\\.($(IFS='|'; echo "${cycles[*]}"))\$"
	rm -f "$OUT"/base-*.json "$OUT"/head-*.json "$OUT"/*-jmh.log "$OUT"/*-handoff.log
	[ "${CYCLES:-1}" = 0 ] \
		|| record "java -jar <side>.jar -f 1 -rf json -rff $OUT/<side>-<pass>-jmh.json '$pattern'   # passes base, head, head, base; <side>.jar is $TREES/<side>/benchmarks/target/benchmarks.jar"
	record "java -Dhandoff.count=300 -cp <side>.jar dev.lockstarter.benchmarks.HandoffLatency $OUT/<side>-<pass>-handoff.json ${locks[*]}"
	measure() {
		local side=$1 jar=$2 pass=$3
		echo "== Pass $pass: $side"
		load_mark "compare pass $pass $side start"
		if [ "${CYCLES:-1}" != 0 ]; then
			java -jar "$jar" -f 1 -rf json -rff "$OUT/$side-$pass-jmh.json" "$pattern" > "$OUT/$side-$pass-jmh.log" 2>&1 \
				|| { tail -n 40 "$OUT/$side-$pass-jmh.log" >&2; exit 1; }
			grep -E '^ClockStoreCycleBenchmarks\.[A-Za-z]+ +thrpt' "$OUT/$side-$pass-jmh.log" || true
		fi
		# 300 handoffs a pass, as a revision from before the count could be set measures
		java -Dhandoff.count=300 -cp "$jar" dev.lockstarter.benchmarks.HandoffLatency "$OUT/$side-$pass-handoff.json" "${locks[@]}" \
			> "$OUT/$side-$pass-handoff.log" 2>&1 || { tail -n 40 "$OUT/$side-$pass-handoff.log" >&2; exit 1; }
		grep -E ' p50 ' "$OUT/$side-$pass-handoff.log"
	}
	for pass in $(seq 1 "$PASSES"); do
		if [ $((pass % 4)) -eq 1 ] || [ $((pass % 4)) -eq 0 ]; then
			measure base "$base_jar" "$pass"
		else
			measure head "$head_jar" "$pass"
		fi
	done
	load_mark "compare end"
}

takeover() {
	local stores=(REDIS POSTGRESQL MARIADB ETCD ZOOKEEPER MEMCACHED)
	dynamodb_committed && stores+=(DYNAMODB)
	record "java -Dtakeover.kills=$KILLS -cp $head_jar dev.lockstarter.benchmarks.TakeoverDelay $OUT/takeover.json ${stores[*]}"
	load_mark "takeover start"
	java -Dtakeover.kills="$KILLS" -cp "$head_jar" dev.lockstarter.benchmarks.TakeoverDelay "$OUT/takeover.json" \
		"${stores[@]}" > "$OUT/takeover.log" 2>&1 || { tail -n 40 "$OUT/takeover.log" >&2; exit 1; }
	grep -E ' p50 |^==|did not get' "$OUT/takeover.log"
	load_mark "takeover end"
}

loss() {
	record "java -Dloss.trials=$TRIALS -cp $head_jar dev.lockstarter.benchmarks.LossDetectionLatency $OUT/loss-head.json"
	record "java -Dloss.trials=$BASE_TRIALS -cp $base_jar dev.lockstarter.benchmarks.LossDetectionLatency $OUT/loss-base.json"
	load_mark "loss head start"
	java -Dloss.trials="$TRIALS" -cp "$head_jar" dev.lockstarter.benchmarks.LossDetectionLatency "$OUT/loss-head.json" \
		> "$OUT/loss-head.log" 2>&1 || { tail -n 40 "$OUT/loss-head.log" >&2; exit 1; }
	grep -E ' p50 |never' "$OUT/loss-head.log"
	load_mark "loss base start"
	java -Dloss.trials="$BASE_TRIALS" -cp "$base_jar" dev.lockstarter.benchmarks.LossDetectionLatency \
		"$OUT/loss-base.json" > "$OUT/loss-base.log" 2>&1 || { tail -n 40 "$OUT/loss-base.log" >&2; exit 1; }
	grep -E ' p50 |never' "$OUT/loss-base.log"
	load_mark "loss end"
}

report() {
	PYTHONPATH=benchmarks python3 -m report.clock "$OUT" | tee "$OUT/summary.md"
	python3 benchmarks/report.py render benchmarks/results docs/PERFORMANCE.md
	echo "== Wrote $OUT/summary.md and docs/PERFORMANCE.md"
}

for step in "${STEPS[@]}"; do
	case "$step" in
		compare | takeover | loss)
			rm -f "$OUT/commands-$step.txt"
			started=$(date +%s)
			wait_for_load
			"$step"
			echo "$(($(date +%s) - started))" > "$OUT/elapsed-$step.txt"
			;;
		report) report ;;
		*) echo "Unknown step: $step (compare, takeover, loss, report)" >&2; exit 2 ;;
	esac
done
