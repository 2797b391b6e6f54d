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
# Writes OUTPUT.json (default: lock-server-handoff.json in the current directory): when it started (UTC), and
# per setup the percentiles and every sample in microseconds, as benchmarks/results/handoff.json holds them.
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

# shellcheck source=lock-server/load/common.sh
. "$(dirname "$0")/common.sh"
start_servers 2

java -version 2>&1 | head -n 1
echo "cores: $(nproc); redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/')"
java -cp "$classpath" "$here/HandoffLoad.java" "$OUTPUT" "127.0.0.1:$REDIS_PORT" \
	"http://127.0.0.1:$SERVER_PORT" "http://127.0.0.1:$((SERVER_PORT + 2))" "$HANDOFFS" "$ROUNDS" | grep RESULT
echo "Wrote $OUTPUT"
