#!/usr/bin/env bash
# Throughput of the locked registration (POST /api/users, @ExclusiveRequest on a suspend
# function, lock in Redis) against the same registration without the lock
# (POST /api/unsafe/users), on one instance of the Kotlin sample with the 'redis' profile and
# the points service's latency at 0, so that the lock's own cost shows.
#
# Needs wrk and redis-server on the PATH, and Java 17. From the repository root:
#
#   sample-reactive-app/load/run.sh
#
# Settings (environment): THREADS (2), CONNECTIONS (50), DURATION (15s) of each measurement,
# WARMUP (15s, on each endpoint, not reported), ROUNDS (2) of one locked and one unlocked measurement,
# APP_PORT (8090), REDIS_PORT (6390; a fresh redis-server is started there and stopped after).
set -euo pipefail

THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-50}
DURATION=${DURATION:-15s}
WARMUP=${WARMUP:-15s}
ROUNDS=${ROUNDS:-2}
APP_PORT=${APP_PORT:-8090}
REDIS_PORT=${REDIS_PORT:-6390}

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
app_pid=""
redis_pid=""

cleanup() {
	[ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null && wait "$app_pid" 2>/dev/null || true
	[ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

for tool in wrk redis-server java curl; do
	command -v "$tool" >/dev/null || { echo "$tool is not on the PATH" >&2; exit 1; }
done

jar=$(ls "$root"/sample-reactive-app/target/lock-sample-reactive-app-*.jar 2>/dev/null | head -n 1 || true)
if [ -z "$jar" ]; then
	(cd "$root" && ./mvnw -q -pl sample-reactive-app -am package -DskipTests)
	jar=$(ls "$root"/sample-reactive-app/target/lock-sample-reactive-app-*.jar | head -n 1)
fi

redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" \
	--maxmemory-policy noeviction >"$work/redis.log" 2>&1 &
redis_pid=$!

java -jar "$jar" --spring.profiles.active=redis --server.port="$APP_PORT" \
	--spring.data.redis.host=127.0.0.1 --spring.data.redis.port="$REDIS_PORT" \
	--sample.points-service.latency=0ms >"$work/app.log" 2>&1 &
app_pid=$!

for _ in $(seq 1 120); do
	if curl -fs "http://127.0.0.1:$APP_PORT/actuator/health" 2>/dev/null | grep -q '"status":"UP"'; then
		break
	fi
	kill -0 "$app_pid" 2>/dev/null || { cat "$work/app.log" >&2; exit 1; }
	sleep 1
done
curl -fs "http://127.0.0.1:$APP_PORT/actuator/health" >/dev/null || { echo "The app did not start" >&2; exit 1; }

locked="http://127.0.0.1:$APP_PORT/api/users"
unlocked="http://127.0.0.1:$APP_PORT/api/unsafe/users"
measure() {
	wrk -t"$THREADS" -c"$CONNECTIONS" -d"$1" --latency -s "$here/register.lua" "$2"
}

echo "== warm-up ($WARMUP each)"
measure "$WARMUP" "$locked" | grep RESULT
measure "$WARMUP" "$unlocked" | grep RESULT

rps() { sed -n 's/^RESULT .* rps=\([0-9]*\) .*/\1/p' "$1"; }
for round in $(seq 1 "$ROUNDS"); do
	echo "== round $round, locked: POST /api/users ($THREADS threads, $CONNECTIONS connections, $DURATION)"
	measure "$DURATION" "$locked" | tee "$work/locked.txt"
	echo "== round $round, unlocked: POST /api/unsafe/users ($THREADS threads, $CONNECTIONS connections, $DURATION)"
	measure "$DURATION" "$unlocked" | tee "$work/unlocked.txt"
	echo "== round $round, locked/unlocked throughput: $(awk -v l="$(rps "$work/locked.txt")" \
		-v u="$(rps "$work/unlocked.txt")" 'BEGIN { printf "%.2f (%d / %d requests/s)", l / u, l, u }')"
done

# What each registration costs in Redis commands, over the whole run
if command -v redis-cli >/dev/null; then
	echo "== Redis commands over the run (warm-up included)"
	redis-cli -p "$REDIS_PORT" INFO commandstats | grep -E '^cmdstat_' | sed 's/,usec_per_call.*//'
fi
