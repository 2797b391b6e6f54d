#!/usr/bin/env bash
# The lock server's acquire + release cycle over HTTP next to the direct LockTemplate cycle on the
# same Redis, in one run: cycles per second and p50/p99 latency of a cycle, for 1 and 8 threads,
# alternating direct and HTTP measurements ROUNDS times. The server runs as its own JVM (the
# executable jar, lock.store=redis, rate limit off); the load driver is LockCycleLoad.java.
#
# Needs Java 17, redis-server and curl. From the repository root:
#
#   lock-server/load/run.sh [OUTPUT.json]
#
# Prints a RESULT line per measurement and writes OUTPUT.json (default: lock-server-cycle.json in
# the current directory): the settings, the machine's load average when the measurements start and
# when they end, and every measurement (round, threads, mode, cycles per second, p50 and p99 in
# microseconds), as benchmarks/report.py reads it from benchmarks/results/server-cycle.json.
# Settings (environment): DURATION (10, seconds per measurement after a warm-up of 5 s, or of
# DURATION if shorter), ROUNDS (2), THREADS ("1 8"), SERVER_PORT (8095), MANAGEMENT_PORT (8096),
# REDIS_PORT (6391), SKIP_BUILD (unset: build the jar first).
set -euo pipefail

OUTPUT=$(realpath -m "${1:-lock-server-cycle.json}")
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

for tool in redis-server java jar curl sha256sum; do
	command -v "$tool" >/dev/null || { echo "$tool is not on the PATH" >&2; exit 1; }
done

if [ -z "${SKIP_BUILD:-}" ]; then
	(cd "$root" && ./mvnw -q -pl lock-server -am package -DskipTests)
fi
# The load driver's classpath: the server's own classes and libraries, from its executable jar
mkdir "$work/jar"
(cd "$work/jar" && jar xf "$root/lock-server/target/lock-server.jar")
classpath="$work/jar/BOOT-INF/classes:$(ls "$work"/jar/BOOT-INF/lib/*.jar | tr '\n' ':')"

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

# A JSON string: the text with its backslashes and double quotes escaped
json_string() {
	local text=${1//\\/\\\\}
	printf '"%s"' "${text//\"/\\\"}"
}

# The three load averages of /proc/loadavg, as a JSON array of strings
loadavg() {
	local one five fifteen
	read -r one five fifteen _ < /proc/loadavg
	printf '["%s", "%s", "%s"]' "$one" "$five" "$fifteen"
}

# A RESULT line of LockCycleLoad (RESULT mode=http threads=8 cycles_per_s=... p50_us=... ...) as a
# JSON object with its round first
measurement() {
	local round=$1 line=$2 fields pair
	fields="\"round\": $round"
	for pair in $line; do
		case $pair in
			mode=*) fields+=", \"mode\": \"${pair#mode=}\"" ;;
			*=*) fields+=", \"${pair%%=*}\": ${pair#*=}" ;;
		esac
	done
	printf '{%s}' "$fields"
}

java_version=$(java -version 2>&1 | head -n 1)
redis_version=$(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/')
echo "$java_version"
echo "cores: $(nproc); redis-server $redis_version"
loadavg_start=$(loadavg)
measurements=()
for round in $(seq 1 "$ROUNDS"); do
	for threads in $THREADS; do
		for mode in direct http; do
			if [ "$mode" = direct ]; then target="127.0.0.1:$REDIS_PORT"; else target="http://127.0.0.1:$SERVER_PORT"; fi
			line=$(java -cp "$classpath" "$here/LockCycleLoad.java" "$mode" "$target" "$threads" "$DURATION" | grep RESULT)
			echo "$line"
			measurements+=("$(measurement "$round" "$line")")
		done
	done
done
loadavg_end=$(loadavg)

{
	echo "{"
	echo "  \"duration_s\": $DURATION,"
	echo "  \"warm_up_s\": $((DURATION < 5 ? DURATION : 5)),"
	echo "  \"rounds\": $ROUNDS,"
	echo "  \"threads\": [$(echo $THREADS | sed 's/ /, /g')],"
	echo "  \"cores\": $(nproc),"
	echo "  \"java\": $(json_string "$java_version"),"
	echo "  \"redis_server\": $(json_string "$redis_version"),"
	echo "  \"loadavg_start\": $loadavg_start,"
	echo "  \"loadavg_end\": $loadavg_end,"
	echo "  \"measurements\": ["
	for i in "${!measurements[@]}"; do
		echo "    ${measurements[$i]}$([ "$i" -lt $((${#measurements[@]} - 1)) ] && echo ,)"
	done
	echo "  ]"
	echo "}"
} > "$OUTPUT"
echo "Wrote $OUTPUT"
