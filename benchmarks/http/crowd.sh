#!/usr/bin/env bash
# Single-flight under a crowd: two instances of the sample app on one redis-server (the 'redis' profile),
# GET /api/sum taking sample.sum.latency (1 s), and CROWD_SIZES simultaneous callers (default 10 50 150)
# spread over both instances, CROWD_ROUNDS times each (default 5) after ten unreported warm-up rounds, each round with values of its own.
# benchmarks/http/crowd.py sends the requests and times every answer.
#
# Usage: benchmarks/http/crowd.sh OUTPUT.json   (called by benchmarks/run.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."

OUTPUT=$1
LOG_DIR=$(dirname "$OUTPUT")

# shellcheck source=benchmarks/http/common.sh
source benchmarks/http/common.sh
trap cleanup EXIT

if ! build_sample_app; then
	echo "Crowd benchmark skipped: the sample app did not build (see $LOG_DIR/sample-app-build.log)" >&2
	printf '{"skipped": "the sample app did not build"}\n' > "$OUTPUT"
	exit 0
fi

start_redis
ports=()
for _ in 1 2; do
	port=$(free_port)
	# Enough request threads for the largest crowd on one instance
	start_app "$port" --spring.profiles.active=redis --spring.data.redis.port="$REDIS_PORT" \
		--spring.data.redis.host=127.0.0.1 --server.tomcat.threads.max=400
	ports+=("$port")
done
python3 benchmarks/http/crowd.py --ports "${ports[@]}" --sizes ${CROWD_SIZES:-10 50 150} \
	--rounds "${CROWD_ROUNDS:-5}" > "$OUTPUT"
