#!/usr/bin/env bash
# The lock server's acquire + release cycle over HTTP next to the direct LockTemplate cycle on the
# same Redis, in one run: cycles per second and p50/p99 latency of a cycle, for 1 and 8 threads,
# alternating direct and HTTP measurements ROUNDS times. The server runs as its own JVM (the
# executable jar, lock.store=redis, rate limit off); the load driver is LockCycleLoad.java.
#
# Needs Java 17, redis-server and curl. From the repository root:
#
#   lock-server/load/run.sh
#
# Settings (environment): DURATION (10, seconds per measurement after a 5 s warm-up), ROUNDS (2),
# THREADS ("1 8"), SERVER_PORT (8095), MANAGEMENT_PORT (8096), REDIS_PORT (6391).
set -euo pipefail

DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-2}
THREADS=${THREADS:-"1 8"}
SERVER_PORT=${SERVER_PORT:-8095}
MANAGEMENT_PORT=${MANAGEMENT_PORT:-8096}
REDIS_PORT=${REDIS_PORT:-6391}

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
server_pid=""
redis_pid=""
cleanup() {
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
	[ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

for tool in redis-server java curl sha256sum; do
	command -v "$tool" >/dev/null || { echo "$tool is not on the PATH" >&2; exit 1; }
done

# One reactor build: the sibling modules resolve to their freshly built jars; lock-server, built
# last, writes the classpath file last
(cd "$root" && ./mvnw -q -pl lock-server -am package dependency:build-classpath -DskipTests \
	-Dmdep.outputFile="$work/classpath" -Dmdep.includeScope=runtime)
classpath="$root/lock-server/target/classes:$(cat "$work/classpath")"

redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
redis_pid=$!

export LOCK_SERVER_API_KEY=$(head -c 32 /dev/urandom | base64)
hash=$(printf %s "$LOCK_SERVER_API_KEY" | sha256sum | cut -d' ' -f1)
java -jar "$root/lock-server/target/lock-server.jar" --server.port="$SERVER_PORT" \
	--management.server.port="$MANAGEMENT_PORT" --lock.store=redis \
	--spring.data.redis.host=127.0.0.1 --spring.data.redis.port="$REDIS_PORT" \
	--lock.server.rate-limit.requests-per-second=0 --lock.server.clients[0].name=load \
	--lock.server.clients[0].namespace=load --lock.server.clients[0].api-key-sha256="$hash" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
	curl -fs "http://127.0.0.1:$MANAGEMENT_PORT/actuator/health" 2>/dev/null | grep -q '"status":"UP"' && break
	kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
	sleep 1
done

java -version 2>&1 | head -n 1
echo "cores: $(nproc); redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/')"
for round in $(seq 1 "$ROUNDS"); do
	for threads in $THREADS; do
		java -cp "$classpath" "$here/LockCycleLoad.java" direct "127.0.0.1:$REDIS_PORT" "$threads" "$DURATION" | grep RESULT
		java -cp "$classpath" "$here/LockCycleLoad.java" http "http://127.0.0.1:$SERVER_PORT" "$threads" "$DURATION" | grep RESULT
	done
done
