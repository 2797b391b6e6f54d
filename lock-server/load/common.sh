# What run.sh and handoff.sh share, sourced after they set SERVER_PORT, MANAGEMENT_PORT and REDIS_PORT:
# the working directory and its clean-up, the build (unless SKIP_BUILD), the load driver's classpath
# ($classpath, the server's own classes and libraries, from its executable jar), one redis-server, and
# start_servers N, which starts N server jars on it (instance i on SERVER_PORT + 2i and MANAGEMENT_PORT + 2i,
# lock.store=redis, rate limit off, one client "load" whose API key is $LOCK_SERVER_API_KEY) and waits until
# each is up, with $SERVER_JAVA_OPTS on their command line when set (a profiler's options, say). Every process
# started is stopped on exit.

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

for tool in redis-server java jar curl sha256sum; do
	command -v "$tool" >/dev/null || { echo "$tool is not on the PATH" >&2; exit 1; }
done

if [ -z "${SKIP_BUILD:-}" ]; then
	(cd "$root" && ./mvnw -q -pl lock-server -am package -DskipTests)
fi
mkdir "$work/jar"
(cd "$work/jar" && jar xf "$root/lock-server/target/lock-server.jar")
classpath="$work/jar/BOOT-INF/classes:$(ls "$work"/jar/BOOT-INF/lib/*.jar | tr '\n' ':')"

redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
pids+=($!)

LOCK_SERVER_API_KEY=$(head -c 32 /dev/urandom | base64)
export LOCK_SERVER_API_KEY

start_servers() {
	local count=$1 instance hash first=${#pids[@]}
	hash=$(printf %s "$LOCK_SERVER_API_KEY" | sha256sum | cut -d' ' -f1)
	for ((instance = 0; instance < count; instance++)); do
		java ${SERVER_JAVA_OPTS:-} -jar "$root/lock-server/target/lock-server.jar" --server.port=$((SERVER_PORT + 2 * instance)) \
			--management.server.port=$((MANAGEMENT_PORT + 2 * instance)) --lock.store=redis \
			--spring.data.redis.host=127.0.0.1 --spring.data.redis.port="$REDIS_PORT" \
			--lock.server.rate-limit.requests-per-second=0 --lock.server.clients[0].name=load \
			--lock.server.clients[0].namespace=load --lock.server.clients[0].api-key-sha256="$hash" \
			>"$work/server-$instance.log" 2>&1 &
		pids+=($!)
	done
	for ((instance = 0; instance < count; instance++)); do
		for _ in $(seq 1 120); do
			curl -fs "http://127.0.0.1:$((MANAGEMENT_PORT + 2 * instance))/actuator/health" 2>/dev/null \
				| grep -q '"status":"UP"' && break
			kill -0 "${pids[$((first + instance))]}" 2>/dev/null || { cat "$work/server-$instance.log" >&2; exit 1; }
			sleep 1
		done
	done
}
