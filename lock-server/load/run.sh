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
# the current directory): when it started (UTC), the settings, the machine's load average before the server's
# warm-up (whose own load would show in it) and when the measurements end, and every measurement (round,
# threads, mode, cycles per second, p50 and p99 in microseconds, and the CPU time per cycle of the driver, the
# server and Redis in microseconds), as benchmarks/report.py reads it from benchmarks/results/server-cycle.json.
# Settings (environment): DURATION (10, seconds per measurement after a warm-up of 5 s, or of
# DURATION if shorter), ROUNDS (2), THREADS ("1 8"), SERVER_WARM_UP (30, seconds of HTTP cycles on the
# largest thread count before the first round, unmeasured, so that the server is measured after its
# JIT compilation, as a server that has run for a while), SERVER_PORT (8095), MANAGEMENT_PORT (8096),
# REDIS_PORT (6391), FLOORS ("tomcat netty": the floor references measured beside the server, none when empty),
# FLOOR_PORT (8097, and the next port for the second floor), SKIP_BUILD (unset: build the jar first).
#
# The floor references are FloorServer.java: the thinnest HTTP front on the same Redis store calls, on embedded
# Tomcat (the server's container) and on a Netty event loop. Each takes its turn in every round as mode
# floor-tomcat and floor-netty, and is warmed up as the server is.
set -euo pipefail

OUTPUT=$(realpath -m "${1:-lock-server-cycle.json}")
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-2}
THREADS=${THREADS:-"1 8"}
SERVER_WARM_UP=${SERVER_WARM_UP:-30}
SERVER_PORT=${SERVER_PORT:-8095}
MANAGEMENT_PORT=${MANAGEMENT_PORT:-8096}
REDIS_PORT=${REDIS_PORT:-6391}
FLOORS=${FLOORS-tomcat netty}
FLOOR_PORT=${FLOOR_PORT:-8097}

# shellcheck source=lock-server/load/common.sh
. "$(dirname "$0")/common.sh"
start_servers 1
# The CPU time per cycle of Redis and the server, beside the driver's own (LockCycleLoad.java)
LOAD_CPU_PIDS="redis=${pids[0]},server=${pids[1]}"
CLK_TCK=$(getconf CLK_TCK)
export LOAD_CPU_PIDS CLK_TCK

# The floor references, each on its own port, with the pid that their CPU time per cycle is read from
declare -A floor_url floor_pid
port=$FLOOR_PORT
for floor in $FLOORS; do
	# Its temporary files (Tomcat's base directory) go with the working directory
	java -Djava.io.tmpdir="$work" -cp "$classpath" "$here/FloorServer.java" "$floor" "$port" "127.0.0.1:$REDIS_PORT" \
		>"$work/floor-$floor.log" 2>&1 &
	pids+=($!)
	floor_pid[$floor]=$!
	floor_url[$floor]="http://127.0.0.1:$port"
	for _ in $(seq 1 60); do
		grep -q READY "$work/floor-$floor.log" && break
		kill -0 "${floor_pid[$floor]}" 2>/dev/null || { cat "$work/floor-$floor.log" >&2; exit 1; }
		sleep 1
	done
	port=$((port + 1))
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
# Before the warm-up, whose own load the one-minute average would show for a while
loadavg_start=$(loadavg)
started=$(date -u '+%Y-%m-%d %H:%M UTC')
if [ "$SERVER_WARM_UP" -gt 0 ]; then
	most_threads=$(printf '%s\n' $THREADS | sort -n | tail -n 1)
	echo "Warming the server up: ${SERVER_WARM_UP} s of HTTP cycles on $most_threads threads"
	java -cp "$classpath" "$here/LockCycleLoad.java" http "http://127.0.0.1:$SERVER_PORT" "$most_threads" \
		"$SERVER_WARM_UP" > /dev/null
	for floor in $FLOORS; do
		echo "Warming the $floor floor up: ${SERVER_WARM_UP} s"
		java -cp "$classpath" "$here/LockCycleLoad.java" "floor-$floor" "${floor_url[$floor]}" "$most_threads" \
			"$SERVER_WARM_UP" > /dev/null
	done
fi
measurements=()
for round in $(seq 1 "$ROUNDS"); do
	for threads in $THREADS; do
		for mode in direct http $(for floor in $FLOORS; do echo "floor-$floor"; done); do
			cpu_pids=$LOAD_CPU_PIDS
			case $mode in
				direct) target="127.0.0.1:$REDIS_PORT" ;;
				http) target="http://127.0.0.1:$SERVER_PORT" ;;
				floor-*)
					target=${floor_url[${mode#floor-}]}
					cpu_pids="redis=${pids[0]},server=${floor_pid[${mode#floor-}]}"
					;;
			esac
			line=$(LOAD_CPU_PIDS=$cpu_pids java -cp "$classpath" "$here/LockCycleLoad.java" "$mode" "$target" \
				"$threads" "$DURATION" | grep RESULT)
			echo "$line"
			measurements+=("$(measurement "$round" "$line")")
		done
	done
done
loadavg_end=$(loadavg)

{
	echo "{"
	echo "  \"started\": \"$started\","
	echo "  \"duration_s\": $DURATION,"
	echo "  \"warm_up_s\": $((DURATION < 5 ? DURATION : 5)),"
	echo "  \"server_warm_up_s\": $SERVER_WARM_UP,"
	echo "  \"rounds\": $ROUNDS,"
	echo "  \"threads\": [$(echo $THREADS | sed 's/ /, /g')],"
	echo "  \"floors\": [$(for floor in $FLOORS; do printf '"%s"' "floor-$floor"; done | sed 's/""/", "/g')],"
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
