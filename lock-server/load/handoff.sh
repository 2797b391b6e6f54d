#!/usr/bin/env bash
# The long-poll handoff between two lock server instances on one Redis: a holder acquires a key
# through instance A and releases it; a waiter long-polls the same key through instance B
# ({"waitMillis":5000}). Reports the latency from the release sent to the waiter's acquisition
# answered, p50/p90/p99/max over HANDOFFS handoffs, beside the same handoff between two
# LockTemplates on their own Redis connections, taking turns in ROUNDS rounds. The servers run as
# their own JVMs (the executable jar, lock.store=redis, rate limit off); the load driver is
# HandoffLoad.java.
#
# Needs Java 17, redis-server and curl. From the repository root:
#
#   lock-server/load/handoff.sh [OUTPUT.json]
#
# Writes OUTPUT.json (default: lock-server-handoff.json in the current directory): per setup the
# percentiles and every sample in microseconds, as benchmarks/results/handoff.json holds them.
# Settings (environment): HANDOFFS (1000), ROUNDS (5), SERVER_PORT (8095, instance A; B is
# SERVER_PORT + 2), MANAGEMENT_PORT (8096, A; B is MANAGEMENT_PORT + 2), REDIS_PORT (6391),
# SKIP_BUILD (unset: build the jar first).
set -euo pipefail

OUTPUT=$(realpath -m "${1:-lock-server-handoff.json}")
HANDOFFS=${HANDOFFS:-1000}
ROUNDS=${ROUNDS:-5}
SERVER_PORT=${SERVER_PORT:-8095}
MANAGEMENT_PORT=${MANAGEMENT_PORT:-8096}
REDIS_PORT=${REDIS_PORT:-6391}

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

for tool in redis-server java curl sha256sum; do
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
pids+=($!)

export LOCK_SERVER_API_KEY=$(head -c 32 /dev/urandom | base64)
hash=$(printf %s "$LOCK_SERVER_API_KEY" | sha256sum | cut -d' ' -f1)
for instance in 0 1; do
	java -jar "$root/lock-server/target/lock-server.jar" --server.port=$((SERVER_PORT + 2 * instance)) \
		--management.server.port=$((MANAGEMENT_PORT + 2 * instance)) --lock.store=redis \
		--spring.data.redis.host=127.0.0.1 --spring.data.redis.port="$REDIS_PORT" \
		--lock.server.rate-limit.requests-per-second=0 --lock.server.clients[0].name=load \
		--lock.server.clients[0].namespace=load --lock.server.clients[0].api-key-sha256="$hash" \
		>"$work/server-$instance.log" 2>&1 &
	pids+=($!)
done
for instance in 0 1; do
	for _ in $(seq 1 120); do
		curl -fs "http://127.0.0.1:$((MANAGEMENT_PORT + 2 * instance))/actuator/health" 2>/dev/null \
			| grep -q '"status":"UP"' && break
		kill -0 "${pids[$((instance + 1))]}" 2>/dev/null || { cat "$work/server-$instance.log" >&2; exit 1; }
		sleep 1
	done
done

java -version 2>&1 | head -n 1
echo "cores: $(nproc); redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/')"
java -cp "$classpath" "$here/HandoffLoad.java" "$OUTPUT" "127.0.0.1:$REDIS_PORT" \
	"http://127.0.0.1:$SERVER_PORT" "http://127.0.0.1:$((SERVER_PORT + 2))" "$HANDOFFS" "$ROUNDS" | grep RESULT
echo "Wrote $OUTPUT"
