#!/usr/bin/env bash
# One public API key against the others: the server jar with its documented configuration (the
# in-memory store, default limits) and two clients, "hog" and "other". The hog holds a lock and
# sends WAITS acquisitions of it with a 15 s wait; meanwhile the other client acquires and
# releases SAMPLES locks, and the readiness probe is asked, one request at a time. Prints how the
# waits were answered (429 beyond the hog's share) and the latency of the other client's requests.
#
# Needs Java 17 and curl. From the repository root:
#
#   lock-server/load/waits.sh
#
# Settings (environment): WAITS (250), SAMPLES (50), SERVER_PORT (8095), MANAGEMENT_PORT (8096),
# SKIP_BUILD (unset: build the jar first).
set -euo pipefail

WAITS=${WAITS:-250}
SAMPLES=${SAMPLES:-50}
SERVER_PORT=${SERVER_PORT:-8095}
MANAGEMENT_PORT=${MANAGEMENT_PORT:-8096}

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
server_pid=""
cleanup() {
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

if [ -z "${SKIP_BUILD:-}" ]; then
	(cd "$root" && ./mvnw -q -pl lock-server -am package -DskipTests)
fi

hog_key=$(head -c 32 /dev/urandom | base64 | tr -d '/+=')
other_key=$(head -c 32 /dev/urandom | base64 | tr -d '/+=')
java -jar "$root/lock-server/target/lock-server.jar" --server.port="$SERVER_PORT" \
	--management.server.port="$MANAGEMENT_PORT" --lock.store=memory \
	--lock.server.clients[0].name=hog --lock.server.clients[0].namespace=hog \
	--lock.server.clients[0].api-key-sha256="$(printf %s "$hog_key" | sha256sum | cut -d' ' -f1)" \
	--lock.server.clients[1].name=other --lock.server.clients[1].namespace=other \
	--lock.server.clients[1].api-key-sha256="$(printf %s "$other_key" | sha256sum | cut -d' ' -f1)" \
	>"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
	curl -fs "http://127.0.0.1:$SERVER_PORT/readyz" >/dev/null 2>&1 && break
	kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
	sleep 1
done

java -version 2>&1 | head -n 1
echo "cores: $(nproc)"
java "$here/WaitsLoad.java" "http://127.0.0.1:$SERVER_PORT" "$hog_key" "$other_key" "$WAITS" "$SAMPLES" | grep RESULT
