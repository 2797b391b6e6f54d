#!/usr/bin/env bash
# Runs every test of the project. The tests start real servers (redis-server, memcached, PostgreSQL,
# MariaDB, etcd, ZooKeeper) on free loopback ports, make TLS certificates with openssl, drive the
# sample's page in a headless Chromium and run the lock server's Python client with python3, so this
# installs them first when they are missing and apt-get is available. Run as root, the tests also cut
# cluster members off from each other in network namespaces (ip, from iproute2); otherwise they skip that.
# The reliability tests step worker JVMs' wall clocks with libfaketime (faketime).
#
# Each module's test classes run in two JVMs at once (-Dtests.forks=1 for one; docs/building.md#forks).
#
# With --quick, it runs the inner loop's lane instead: the unit and contract tests of the engine, the web layer,
# the auto-configuration, the in-memory and Redis stores and the adapters, but for those .ci/quick-excludes lists
# (docs/building.md#the-quick-lane), or the file that QUICK_EXCLUDES names. Any other argument goes to Maven.
# Either way it ends with a table of where the time went (scripts/test-times.py).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=false
quick_modules="lock-core,lock-web,lock-store-redis,lock-integration,lock-shedlock,lock-spring-boot-autoconfigure"
if [ "${1:-}" = --quick ]; then
	quick=true
	shift
fi

packages=()
command -v redis-server >/dev/null 2>&1 || packages+=(redis-server)
command -v memcached >/dev/null 2>&1 || packages+=(memcached)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null 2>&1 || packages+=(postgresql)
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || packages+=(mariadb-server)
command -v etcd >/dev/null 2>&1 || [ -x /usr/bin/etcd ] || packages+=(etcd-server)
[ -f /usr/share/java/zookeeper.jar ] || packages+=(zookeeper)
[ -x /usr/sbin/ip ] || [ -x /sbin/ip ] || command -v ip >/dev/null 2>&1 || packages+=(iproute2)
command -v curl >/dev/null 2>&1 || packages+=(curl)
command -v openssl >/dev/null 2>&1 || packages+=(openssl)
command -v python3 >/dev/null 2>&1 || packages+=(python3)
[ -f /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] || command -v faketime >/dev/null 2>&1 || packages+=(faketime)
command -v chromium >/dev/null 2>&1 || packages+=(chromium)
command -v chromedriver >/dev/null 2>&1 || packages+=(chromium-driver)
if [ ${#packages[@]} -gt 0 ]; then
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "Missing: ${packages[*]}. Install them with your package manager, then run this again." >&2
		exit 1
	fi
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get update
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"
fi

started="$(date +%s)"
status=0
if [ "$quick" = true ]; then
	# The modules of the quick lane and what they are built on; the tests .ci/quick-excludes lists are left
	# out (the other stores' suites among them, since the auto-configuration is built on every store)
	./mvnw verify -pl "$quick_modules" -am -Dsurefire.excludesFile="${QUICK_EXCLUDES:-$PWD/.ci/quick-excludes}" "$@" || status=$?
else
	./mvnw verify "$@" || status=$?
fi
python3 scripts/test-times.py --since "$started" --root . || true
exit "$status"
