#!/usr/bin/env bash
# The release build, checked as a release would be, without publishing anything:
#  1. ./mvnw -P release verify on the published modules: jars, sources, Javadoc, SBOMs, signatures,
#     staged in target/central-staging and zipped into target/central-bundle.zip, which the
#     release-check module checks against Maven Central's requirements and builds a user's project
#     against;
#  2. the same commit built again from clean, and compared byte for byte with the first build
#     (maven-artifact-plugin's compare; signatures aside, which differ at every signing).
# Usage: scripts/release-check.sh [--staged] [version]
#   version   default: the POM's version without -SNAPSHOT
#   --staged  the first build has run already (CI's test run is the release build) and left its
#             bundle in target/central-staging: only build again and compare
# Signs with the key named by -Dgpg.keyname in MAVEN_ARGS, or the default key of GNUPGHOME; with
# neither, with a key made for this run only.
set -euo pipefail
cd "$(dirname "$0")/.."

staged=false
if [ "${1:-}" = "--staged" ]; then
	staged=true
	shift
fi
version="${1:-$(sed -n 's|.*<revision>\(.*\)</revision>.*|\1|p' pom.xml | head -n 1)}"
version="${version%-SNAPSHOT}"
# The published modules are the ones whose POM says so; the bundle check fails if one is missing.
modules="$(grep -l '<skip.publication>false</skip.publication>' ./*/pom.xml | xargs -n 1 dirname | xargs -n 1 basename | paste -sd, -)"

if [ "$staged" = false ]; then
	# shellcheck source=release-key.sh
	. scripts/release-key.sh
	echo "Release build of $version: $modules"
	./mvnw -P release -Drevision="$version" -DskipTests clean verify -pl "$modules,release-check"
fi

if ! grep -qs "<version>$version</version>" "target/central-staging/dev/lockstarter/lock-core/maven-metadata.xml"; then
	echo "No release build of $version in target/central-staging to compare with" >&2
	exit 1
fi
again="$(mktemp -d)"
echo "Building $version again from clean, and comparing it with the first build"
./mvnw -P release -Drevision="$version" -DskipTests -Dgpg.skip=true -Dcentral.staging="$again" clean verify \
	org.apache.maven.plugins:maven-artifact-plugin:compare -Dreference.repo="file://$PWD/target/central-staging" \
	-pl "$modules"
rm -rf "$again"
