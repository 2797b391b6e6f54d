#!/usr/bin/env bash
# Records the API baseline that the build's API check compares against (docs/compatibility.md):
# the main jar of every published module (<skip.publication>false</skip.publication>, packaging jar),
# copied to config/api-baseline/<artifactId>.jar.
#
#   scripts/record-api-baseline.sh [maven options]     build the modules from this work tree and record them
#   scripts/record-api-baseline.sh --release VERSION   record the jars of a published release instead
#
# Builds are reproducible (project.build.outputTimestamp), so recording unchanged code again leaves the
# files byte for byte as they were.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
baseline="config/api-baseline"

modules=()
for pom in */pom.xml; do
	module="$(dirname "$pom")"
	if grep -q '<skip.publication>false</skip.publication>' "$pom" && ! grep -q '<packaging>pom</packaging>' "$pom"; then
		modules+=("$module")
	fi
done
if [ ${#modules[@]} -eq 0 ]; then
	echo "No published module found" >&2
	exit 1
fi
list="$(IFS=,; echo "${modules[*]}")"

if [ "${1:-}" = "--release" ]; then
	version="${2:?usage: $0 --release VERSION}"
	shift 2
	for module in "${modules[@]}"; do
		./mvnw -q "$@" dependency:copy -N -Dartifact="dev.lockstarter:$module:$version:jar" \
			-Dmdep.stripVersion=true -DoutputDirectory="$baseline"
	done
else
	# package, not verify: the API check itself must not run against the baseline being replaced
	version="$(./mvnw -q -N "$@" help:evaluate -Dexpression=project.version -DforceStdout)"
	./mvnw -q "$@" package -DskipTests -pl "$list"
	for module in "${modules[@]}"; do
		cp "$module/target/$module-$version.jar" "$baseline/$module.jar"
	done
fi

for module in "${modules[@]}"; do
	test -f "$baseline/$module.jar" || { echo "Missing $baseline/$module.jar" >&2; exit 1; }
done
echo "Recorded the API baseline of ${#modules[@]} modules in $baseline ($(du -ch "$baseline"/*.jar | tail -1 | cut -f1)):"
ls -l "$baseline"/*.jar | awk '{print "  " $NF " " $5 " bytes"}'
