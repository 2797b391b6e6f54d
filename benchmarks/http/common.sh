# Helpers shared by the HTTP benchmarks (sourced): free ports, a redis-server of their own, instances of
# the sample app, and cleanup of everything they started. LOG_DIR must be set.

APP_PIDS=()
REDIS_PID=
REDIS_DIR=

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Builds the sample app once and sets JAR; returns 1 when the build fails.
build_sample_app() {
	echo "Building the sample app ..."
	./mvnw -q -B -pl sample-app -am package -Dmaven.test.skip=true > "$LOG_DIR/sample-app-build.log" 2>&1 || return 1
	JAR=$(ls sample-app/target/lock-sample-app-*.jar | grep -v original | head -1)
}

cleanup() {
	local pid
	for pid in "${APP_PIDS[@]}"; do
		kill "$pid" 2> /dev/null && wait "$pid" 2> /dev/null || true
	done
	[ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2> /dev/null && wait "$REDIS_PID" 2> /dev/null || true
	[ -n "$REDIS_DIR" ] && rm -rf "$REDIS_DIR"
	APP_PIDS=()
	REDIS_PID=
	REDIS_DIR=
}

# Starts a redis-server without persistence on a free port, and sets REDIS_PORT.
start_redis() {
	REDIS_DIR=$(mktemp -d)
	REDIS_PORT=$(free_port)
	redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --protected-mode no --save "" --appendonly no \
		--daemonize no --dir "$REDIS_DIR" > "$REDIS_DIR/redis.log" 2>&1 &
	REDIS_PID=$!
	for _ in $(seq 100); do
		redis-cli -p "$REDIS_PORT" ping > /dev/null 2>&1 && return 0
		sleep 0.05
	done
	echo "redis-server did not start" >&2
	return 1
}

# Starts an instance of the sample app on a port, with the given extra arguments, and waits until it answers.
start_app() {
	local port=$1 pid
	shift
	java -jar "$JAR" --server.port="$port" --logging.level.root=WARN "$@" > "$LOG_DIR/sample-app-$port.log" 2>&1 &
	pid=$!
	APP_PIDS+=("$pid")
	for _ in $(seq 300); do
		if curl -s -o /dev/null "http://127.0.0.1:$port/api/sum/calls"; then
			return 0
		fi
		kill -0 "$pid" 2> /dev/null || break
		sleep 0.1
	done
	echo "The sample app did not start; its log:" >&2
	cat "$LOG_DIR/sample-app-$port.log" >&2
	return 1
}
