#!/usr/bin/env bash
# Runs every test of the project. The tests start real servers (redis-server, memcached, PostgreSQL,
# MariaDB, etcd, ZooKeeper) on free loopback ports, make TLS certificates with openssl, drive the
# sample's page in a headless Chromium and run the lock server's Python client with python3, so this
# installs them first when they are missing and apt-get is available. Run as root, the tests also cut
# cluster members off from each other in network namespaces (ip, from iproute2); otherwise they skip that.
# The reliability tests step worker JVMs' wall clocks with libfaketime (faketime).
set -euo pipefail
cd "$(dirname "$0")/.."

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

exec ./mvnw verify "$@"
