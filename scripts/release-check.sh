#!/usr/bin/env bash
# The release build, checked as a release would be, without publishing anything:
#  1. ./mvnw -P release verify on the published modules: jars, sources, Javadoc, SBOMs, signatures,
#     staged in target/central-staging and zipped into target/central-bundle.zip, which the
#     release-check module checks against Maven Central's requirements and builds a user's project
#     against;
#  2. the same commit built again from clean into a staging directory of its own, and every file
#     compared byte for byte with the first build's (signatures aside: they differ at every signing).
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
# The second build runs in a copy of this tree: it builds from clean, and leaves this tree's output (the
# first build's, and any other) alone.
again="$(mktemp -d)"
tree="$(mktemp -d)"
scripts/copy-tree.sh "$tree"
echo "Building $version again from clean in $tree, and comparing it with the first build"
(cd "$tree" && ./mvnw -P release -Drevision="$version" -DskipTests -Dgpg.skip=true -Dcentral.staging="$again" verify -pl "$modules")
rm -rf "$tree"
# Every file of the second build, byte for byte as in the first, and none missing from either: the
# signatures (made by the first build only, and different at every signing) and Maven's metadata
# (which carries the time of the deployment) aside.
same=0
differ=()
while IFS= read -r file; do
	if cmp -s "target/central-staging/$file" "$again/$file"; then
		same=$((same + 1))
	else
		differ+=("$file")
	fi
done < <(cd "$again" && find . -type f ! -name 'maven-metadata*' | sort)
while IFS= read -r file; do
	[ -f "$again/$file" ] || differ+=("$file (not built again)")
done < <(cd target/central-staging && find . -type f ! -name 'maven-metadata*' ! -name '*.asc' ! -name '*.asc.*' | sort)
if [ ${#differ[@]} -gt 0 ]; then
	echo "Not reproducible: ${#differ[@]} of the release's files differ between two builds of this commit:" >&2
	printf '  %s\n' "${differ[@]}" >&2
	echo "(the second build is in $again)" >&2
	exit 1
fi
rm -rf "$again"
echo "Reproducible: the $same files of the second build are byte for byte those of the first"
