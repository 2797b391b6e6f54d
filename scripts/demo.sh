#!/usr/bin/env bash
#
# Fires simultaneous registrations of one user name at the sample app, first at the endpoint
# without a lock (POST /api/unsafe/users), then at the one guarded by @ExclusiveRequest
# (POST /api/users), and prints how many registrations each stored.
#
#   scripts/demo.sh [memory|redis]
#
#   memory (default)  one app instance with the in-memory lock store and in-memory users.
#   redis             a throwaway redis-server on a free port and two app instances with the
#                     'redis' profile, sharing it; the requests alternate between the instances.
#
# Environment:
#   PORT      app port in memory mode (default 8080)
#   PORTS     app ports in redis mode (default "8081 8082")
#   REQUESTS  simultaneous requests per round (default 20)
#   LATENCY   simulated points-service latency, sample.points-service.latency (default 300ms)
#   BUILD=1   rebuild the app jar even if one exists
#
# Needs bash, curl, java 17+ and, for redis mode, redis-server (apt-get install redis-server).
# Every process the script starts is stopped when it exits.

set -euo pipefail

MODE="${1:-memory}"
REQUESTS="${REQUESTS:-20}"
LATENCY="${LATENCY:-300ms}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/lock-demo.XXXXXX")"
PIDS=()

cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
	echo "demo: $*" >&2
	exit 1
}

port_in_use() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

free_port() {
	local port
	for _ in $(seq 50); do
		port=$((20000 + RANDOM % 20000))
		if ! port_in_use "$port"; then
			echo "$port"
			return
		fi
	done
	die "no free port found"
}

app_jar() {
	local jar
	jar="$(ls "$ROOT"/sample-app/target/lock-sample-app-*.jar 2>/dev/null | grep -v '\.original$' | head -n 1 || true)"
	if [[ -z "$jar" || "${BUILD:-0}" == "1" ]]; then
		echo "Building the sample app (./mvnw -pl sample-app -am package -DskipTests) ..." >&2
		(cd "$ROOT" && ./mvnw -B -q -pl sample-app -am package -DskipTests) >&2 || die "build failed"
		jar="$(ls "$ROOT"/sample-app/target/lock-sample-app-*.jar | grep -v '\.original$' | head -n 1)"
	fi
	echo "$jar"
}

# start_app PORT [ARG...]: start an app instance and wait until it answers.
start_app() {
	local port="$1"
	shift
	port_in_use "$port" && die "port $port is in use; set PORT/PORTS to free ports"
	java -jar "$JAR" --server.port="$port" --sample.points-service.latency="$LATENCY" "$@" \
		>"$WORK/app-$port.log" 2>&1 &
	local pid=$!
	PIDS+=("$pid")
	for _ in $(seq 120); do
		if curl -s -o /dev/null "http://127.0.0.1:$port/api/users?userName=ping"; then
			echo "  app on port $port is up (pid $pid)"
			return
		fi
		kill -0 "$pid" 2>/dev/null || { tail -n 30 "$WORK/app-$port.log" >&2; die "app on port $port exited"; }
		sleep 0.5
	done
	tail -n 30 "$WORK/app-$port.log" >&2
	die "app on port $port did not start within 60 s"
}

start_redis() {
	command -v redis-server >/dev/null || die "redis-server not found: apt-get install -y redis-server"
	REDIS_PORT="$(free_port)"
	mkdir -p "$WORK/redis"
	redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --protected-mode no --save "" --appendonly no \
		--daemonize no --dir "$WORK/redis" >"$WORK/redis.log" 2>&1 &
	local pid=$!
	PIDS+=("$pid")
	for _ in $(seq 100); do
		if [[ "$(redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" == "PONG" ]]; then
			echo "  redis-server on port $REDIS_PORT is up (pid $pid)"
			return
		fi
		sleep 0.1
	done
	die "redis-server did not start"
}

# round LABEL PATH NAME: fire REQUESTS simultaneous registrations of NAME, spread over PORTS.
round() {
	local label="$1" path="$2" name="$3" i port
	local dir="$WORK/$label"
	local curls=()
	mkdir -p "$dir"
	echo
	echo "$REQUESTS simultaneous POST $path {\"userName\":\"$name\"} over port(s) ${APP_PORTS[*]}"
	for ((i = 0; i < REQUESTS; i++)); do
		port="${APP_PORTS[i % ${#APP_PORTS[@]}]}"
		curl -s -o "$dir/body-$i" -D "$dir/headers-$i" -w '%{http_code}' -X POST \
			-H 'Content-Type: application/json' -d "{\"userName\":\"$name\"}" \
			"http://127.0.0.1:$port$path" >"$dir/status-$i" &
		curls+=($!)
	done
	wait "${curls[@]}" || true

	local -A count=()
	local status counts="" stored
	for ((i = 0; i < REQUESTS; i++)); do
		status="$(<"$dir/status-$i")"
		count[$status]=$((${count[$status]:-0} + 1))
	done
	for status in $(printf '%s\n' "${!count[@]}" | sort); do
		counts+="${counts:+, }${count[$status]} x $status"
	done
	stored="$(curl -s "http://127.0.0.1:${APP_PORTS[0]}/api/users?userName=$name" | grep -o '"userId"' | wc -l)"
	echo "  responses: $counts"
	echo "  registrations stored for \"$name\": $stored"
	SUMMARY+=("$(printf '%-19s %5s %5s %5s %7s %8s' "$path" "${count[201]:-0}" "${count[409]:-0}" \
		"${count[422]:-0}" "$((REQUESTS - ${count[201]:-0} - ${count[409]:-0} - ${count[422]:-0}))" "$stored")")

	for ((i = 0; i < REQUESTS; i++)); do
		if [[ "$(<"$dir/status-$i")" == "409" ]]; then
			echo "  one of the conflicts:"
			grep -iE '^(HTTP|content-type|retry-after)' "$dir/headers-$i" | tr -d '\r' | sed 's/^/    /'
			echo "    $(cat "$dir/body-$i")"
			break
		fi
	done
}

case "$MODE" in
memory)
	APP_PORTS=("${PORT:-8080}")
	;;
redis)
	read -r -a APP_PORTS <<<"${PORTS:-8081 8082}"
	;;
*)
	die "unknown mode '$MODE': use memory or redis"
	;;
esac

command -v java >/dev/null || die "java not found"
command -v curl >/dev/null || die "curl not found"
JAR="$(app_jar)"
SUMMARY=()

echo "== @ExclusiveRequest demo, $MODE mode: $REQUESTS simultaneous registrations, points-service latency $LATENCY =="
if [[ "$MODE" == "memory" ]]; then
	echo "Starting one app instance (in-memory lock store and users) ..."
	start_app "${APP_PORTS[0]}"
else
	echo "Starting redis-server and ${#APP_PORTS[@]} app instances with the 'redis' profile ..."
	start_redis
	for port in "${APP_PORTS[@]}"; do
		start_app "$port" --spring.profiles.active=redis --spring.data.redis.host=127.0.0.1 \
			--spring.data.redis.port="$REDIS_PORT"
	done
fi

round unsafe /api/unsafe/users alice
round safe /api/users bob

echo
echo "Summary ($MODE mode)"
printf '%-19s %5s %5s %5s %7s %8s\n' "endpoint" "201" "409" "422" "other" "stored"
printf '%s\n' "${SUMMARY[@]}"
echo
echo "Without the lock every request that checked the name before the first one stored it went on to"
echo "store its own registration. With @ExclusiveRequest(key = \"#userName\") one request held the lock"
echo "for the name, stored exactly one registration, and the others were answered 409 with Retry-After."
