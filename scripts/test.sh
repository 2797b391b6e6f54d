#!/usr/bin/env bash
# Runs every test of the project. The tests start real servers (redis-server, memcached, PostgreSQL,
# MariaDB, etcd, ZooKeeper) on free loopback ports, make TLS certificates with openssl, drive the
# sample's page in a headless Chromium and run the lock server's Python client with python3, so this
# installs them first when they are missing and apt-get is available. Run as root, the tests also cut
# cluster members off from each other in network namespaces (ip, from iproute2); otherwise they skip that.
# The reliability tests step worker JVMs' wall clocks with libfaketime (faketime).
#
# With --lanes, the tests run in two lanes at once (docs/building.md#two-lanes): this checkout builds every
# module and runs the tests of most; a copy of it in target/second-lane builds what the other modules need and
# runs their tests (those whose POM sets tests.skip to ${tests.skip.second}). The second lane's log is printed
# when it ends. Arguments that name modules (-pl, -rf) run one build.
#
# With --quick, it runs the inner loop's lane instead: the unit and contract tests of the engine, the web layer,
# the auto-configuration, the in-memory and Redis stores and the adapters, but for those .ci/quick-excludes lists
# (docs/building.md#the-quick-lane), or the file that QUICK_EXCLUDES names. Any other argument goes to Maven. Either way it ends with a table of where
# the time went (scripts/test-times.py).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=false
lanes=false
quick_modules="lock-core,lock-web,lock-store-redis,lock-integration,lock-shedlock,lock-spring-boot-autoconfigure"
case "${1:-}" in
--quick)
	quick=true
	shift
	;;
--lanes)
	lanes=true
	shift
	;;
esac
for argument in "$@"; do
	case "$argument" in
	-pl | --projects | -pl=* | --projects=* | -rf | --resume-from | -rf=* | --resume-from=*) lanes=false ;;
	esac
done

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
elif [ "$lanes" = true ]; then
	second="target/second-lane"
	second_modules="$(grep -l '<tests.skip>${tests.skip.second}</tests.skip>' ./*/pom.xml | xargs -n 1 dirname | xargs -n 1 basename | paste -sd, -)"
	rm -rf "$second"
	scripts/copy-tree.sh "$second"
	# The second lane builds its modules and what they are built on, and runs its modules' tests only; the
	# checks of code and publication (format, style, API, Javadoc, signatures) are the first lane's.
	echo "Second lane, in $second (log: $second.log): the tests of $second_modules"
	(cd "$second" && exec setsid ./mvnw verify -pl "$second_modules" -am -Dtests.skip.first=true \
		-Dskip.publication=true -Dcheckstyle.skip=true -Dspring-javaformat.skip=true "$@") >"$second.log" 2>&1 &
	second_pid=$!
	trap 'kill -- -"$second_pid" 2>/dev/null || true' EXIT
	./mvnw verify -Dtests.skip.second=true "$@" || status=$?
	if [ "$status" -ne 0 ]; then
		echo "The first lane failed: stopping the second"
		kill -- -"$second_pid" 2>/dev/null || true
	fi
	second_status=0
	wait "$second_pid" || second_status=$?
	trap - EXIT
	echo
	echo "The second lane's log ($second.log):"
	cat "$second.log"
	[ "$status" -ne 0 ] || status="$second_status"
else
	./mvnw verify "$@" || status=$?
fi
python3 scripts/test-times.py --since "$started" --root . --root target/second-lane || true
exit "$status"
