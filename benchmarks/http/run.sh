#!/usr/bin/env bash
# HTTP throughput of the sample app with wrk: POST /api/users (@ExclusiveRequest) against
# POST /api/unsafe/users (the same registration without the lock), first with the in-memory
# lock store, then with the 'redis' profile on a redis-server of its own, where
# POST /api/raw/users (the registration under a hand-made SET NX PX + compare-and-delete lock)
# is measured too. The simulated points
# service is set to 0 ms so that the registration itself is cheap. Every request registers a
# new user name (benchmarks/http/register.lua). Both endpoints are warmed up, then measured in
# turn, HTTP_ROUNDS times (default 3) for HTTP_DURATION each (default 5s), after HTTP_WARMUP
# (default 10s) of each.
#
# Usage: benchmarks/http/run.sh OUTPUT.json   (called by benchmarks/run.sh)
# Writes {"skipped": "..."} instead when wrk or the sample app is not available.
set -euo pipefail
cd "$(dirname "$0")/../.."

OUTPUT=$1
WARMUP=${HTTP_WARMUP:-10s}
DURATION=${HTTP_DURATION:-5s}
ROUNDS=${HTTP_ROUNDS:-3}
THREADS=${HTTP_THREADS:-2}
CONNECTIONS=${HTTP_CONNECTIONS:-16}
LOG_DIR=$(dirname "$OUTPUT")
MEMORY_ENDPOINTS=(/api/unsafe/users /api/users)
REDIS_ENDPOINTS=(/api/unsafe/users /api/raw/users /api/users)

skip() {
	echo "HTTP benchmark skipped: $1" >&2
	printf '{"skipped": "%s"}\n' "$1" > "$OUTPUT"
	exit 0
}

# shellcheck source=benchmarks/http/common.sh
source benchmarks/http/common.sh
trap cleanup EXIT

if ! command -v wrk > /dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
		echo "Installing wrk with apt-get ..."
		apt-get install -y -q wrk > /dev/null 2>&1 || (apt-get update -q > /dev/null 2>&1 && apt-get install -y -q wrk > /dev/null 2>&1) || true
	fi
	command -v wrk > /dev/null || skip "wrk is not installed (apt-get install -y wrk)"
fi

build_sample_app || skip "the sample app did not build (see $LOG_DIR/sample-app-build.log)"

wrk_run() {
	local port=$1 endpoint=$2 duration=$3 label=$4
	wrk -t"$THREADS" -c"$CONNECTIONS" -d"$duration" -s benchmarks/http/register.lua \
		"http://127.0.0.1:$port$endpoint" -- "$label"
}

# Warm both endpoints up, then measure them in turn, ROUNDS times, so that neither is
# favoured by running later in a warmer JVM.
measure_mode() {
	local mode=$1 port=$2 endpoint round summary
	shift 2
	local endpoints=("$@")
	for endpoint in "${endpoints[@]}"; do
		wrk_run "$port" "$endpoint" "$WARMUP" "warm-$mode$(echo "$endpoint" | tr '/' '-')" > /dev/null
	done
	for round in $(seq "$ROUNDS"); do
		for endpoint in "${endpoints[@]}"; do
			summary=$(wrk_run "$port" "$endpoint" "$DURATION" "$mode-$round$(echo "$endpoint" | tr '/' '-')" \
				| tee -a "$LOG_DIR/wrk.log" | sed -n 's/^WRK_JSON //p')
			echo "  $mode round $round $endpoint: $summary" >&2
			results+=("$(printf '{"mode": "%s", "endpoint": "%s", "round": %s, "summary": %s}' \
				"$mode" "$endpoint" "$round" "$summary")")
		done
	done
}

: > "$LOG_DIR/wrk.log"
results=()

echo "HTTP: in-memory lock store ..."
port=$(free_port)
start_app "$port" --sample.points-service.latency=0ms
measure_mode memory "$port" "${MEMORY_ENDPOINTS[@]}"
cleanup

echo "HTTP: Redis lock store ('redis' profile) ..."
start_redis
port=$(free_port)
start_app "$port" --sample.points-service.latency=0ms --spring.profiles.active=redis \
	--spring.data.redis.port="$REDIS_PORT" --spring.data.redis.host=127.0.0.1
measure_mode redis "$port" "${REDIS_ENDPOINTS[@]}"
cleanup

{
	printf '{"wrk": "%s", "threads": %s, "connections": %s, "warmup": "%s", "duration": "%s", "rounds": %s, "runs": [' \
		"$(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)" "$THREADS" "$CONNECTIONS" "$WARMUP" "$DURATION" "$ROUNDS"
	(IFS=,; printf '%s' "${results[*]}")
	printf ']}\n'
} > "$OUTPUT"
