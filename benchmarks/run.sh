#!/usr/bin/env bash
# Builds and runs every benchmark of the lock starter, then writes docs/PERFORMANCE.md from the
# results (benchmarks/report.py). About 40 minutes on 2 cores.
#
#   benchmarks/run.sh                                           the full run
#   JMH_ARGS="-wi 1 -i 1 -w 1s -r 1s" SKIP_HTTP=1 benchmarks/run.sh   a quick smoke run
#   JMH_ARGS="OneThread" benchmarks/run.sh                      a subset (any JMH arguments)
#   SKIP_PROFILE=1 benchmarks/run.sh                             without the before/after profile
#   SKIP_ADAPTERS=1 benchmarks/run.sh                            without benchmarks/adapters.sh
#   SKIP_SERVER=1 benchmarks/run.sh                              without the lock server (lock-server/load/)
#
# Needs Java 17+, python3 and redis-server (installed with apt-get when missing and run as
# root); wrk for the HTTP part (likewise; skipped without it); curl for the lock server part.
# Raw results go to benchmarks/results/. Before measuring it waits up to IDLE_WAIT seconds
# (default 60) for the CPUs to be mostly idle, since other processes on the machine disturb the
# numbers.
set -euo pipefail
cd "$(dirname "$0")/.."

RESULTS=benchmarks/results
JAR=benchmarks/target/benchmarks.jar
started=$(date +%s)

install_if_missing() {
	local command=$1 package=$2
	if ! command -v "$command" > /dev/null && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
		echo "Installing $package with apt-get ..."
		apt-get install -y -q "$package" > /dev/null 2>&1 \
			|| (apt-get update -q > /dev/null 2>&1 && apt-get install -y -q "$package" > /dev/null 2>&1) || true
	fi
}

install_if_missing redis-server redis-server
command -v redis-server > /dev/null || { echo "redis-server is required (apt-get install -y redis-server)" >&2; exit 1; }
command -v python3 > /dev/null || { echo "python3 is required" >&2; exit 1; }

mkdir -p "$RESULTS"
rm -f "$RESULTS"/*.json "$RESULTS"/*.log "$RESULTS"/*.txt

# Runs a command and records it in the list of commands the report shows.
run() {
	echo "$*" >> "$RESULTS/commands-run.txt"
	"$@"
}

python3 benchmarks/report.py machine > "$RESULTS/machine.json"

echo "== Building the benchmarks"
run ./mvnw -q -B -P benchmarks -pl benchmarks -am package -Dmaven.test.skip=true
if [ -z "${SKIP_SERVER:-}" ]; then
	# The lock server's executable jar, which lock-server/load/ starts (the benchmarks do not depend on it)
	run ./mvnw -q -B -pl lock-server -am package -Dmaven.test.skip=true
fi

# Another process's burst of work (a build, a test run) disturbs the measurements: avoid starting in one.
python3 benchmarks/report.py wait-idle "${IDLE_WAIT:-60}"

echo "== Counting Redis commands per cycle"
run java -cp "$JAR" dev.lockstarter.benchmarks.CommandsPerCycle "$RESULTS/commands.json"

echo "== Handoff latency to a waiting lock"
run java -cp "$JAR" dev.lockstarter.benchmarks.HandoffLatency "$RESULTS/handoff.json"
echo "== Handoff latency between warm JVMs"
run java -Dhandoff.quickWarmUp=20000 -cp "$JAR" dev.lockstarter.benchmarks.HandoffLatency "$RESULTS/handoff-warm.json" \
    STARTER STARTER_REACTIVE SPRING_INTEGRATION_PUB_SUB REDISSON RAW_LETTUCE_SUBSCRIBER_ACQUIRES

echo "== One million distinct keys"
# A fixed heap, so that the heap figures before and after compare (see MillionKeys)
run java -Xms1g -Xmx1g -cp "$JAR" dev.lockstarter.benchmarks.MillionKeys "$RESULTS/scale.json"

echo "== JMH"
# The adapters' benchmarks have a run of their own, below
# shellcheck disable=SC2086
run java -jar "$JAR" -e 'Adapter(Cycle|Overhead)Benchmark' -rf json -rff "$RESULTS/jmh.json" ${JMH_ARGS:-} 2>&1 | tee "$RESULTS/jmh.log"
[ -s "$RESULTS/jmh.json" ] || { echo "JMH wrote no results" >&2; exit 1; }
cat /proc/loadavg > "$RESULTS/loadavg-after-jmh.txt"

if [ -z "${SKIP_ADAPTERS:-}" ]; then
	echo "== The adapters beside LockTemplate and the peers"
	run env SKIP_BUILD=1 SKIP_RENDER=1 IDLE_WAIT=0 benchmarks/adapters.sh
fi

if [ -n "${SKIP_HTTP:-}" ]; then
	echo '{"skipped": "SKIP_HTTP was set"}' > "$RESULTS/http.json"
else
	echo "== HTTP (wrk against the sample app)"
	run benchmarks/http/run.sh "$RESULTS/http.json"
fi

echo "== Single-flight under a crowd (two sample app instances on Redis)"
run benchmarks/http/crowd.sh "$RESULTS/crowd.json"

if [ -n "${SKIP_SERVER:-}" ]; then
	echo '{"skipped": "SKIP_SERVER was set"}' > "$RESULTS/server-cycle.json"
	echo '{"skipped": "SKIP_SERVER was set"}' > "$RESULTS/server-handoff.json"
else
	echo "== The lock server: the acquire + release cycle over HTTP beside LockTemplate"
	run env SKIP_BUILD=1 lock-server/load/run.sh "$RESULTS/server-cycle.json"
	echo "== The lock server: the long-poll handoff across two instances beside LockTemplate"
	run env SKIP_BUILD=1 HANDOFFS=1000 lock-server/load/handoff.sh "$RESULTS/server-handoff.json"
fi

if [ -z "${SKIP_PROFILE:-}" ]; then
	echo "== Profile of the client path, before and after (Java Flight Recorder)"
	run benchmarks/profile.sh "$RESULTS/profile.json"
fi

cat /proc/loadavg > "$RESULTS/loadavg-end.txt"
echo "$(($(date +%s) - started))" > "$RESULTS/elapsed-seconds.txt"
python3 benchmarks/report.py render "$RESULTS" docs/PERFORMANCE.md
echo "== Wrote docs/PERFORMANCE.md; the run took $(cat "$RESULTS/elapsed-seconds.txt") s"
