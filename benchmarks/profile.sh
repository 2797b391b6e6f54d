#!/usr/bin/env bash
# Profiles this starter's uncontended lock cycle with 8 threads (LockCycleBenchmarks.EightThreads.lockTemplate)
# under Java Flight Recorder, for the code of PROFILE_BEFORE (default 4b27b8e, the last commit before the
# client-path work) and for the working tree, and writes both summaries (benchmarks/profile.py) to
# OUTPUT.json, which benchmarks/report.py renders. Java samples every millisecond.
#
# Usage: benchmarks/profile.sh OUTPUT.json   (called by benchmarks/run.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

OUTPUT=$1
BEFORE=${PROFILE_BEFORE:-4b27b8e}
WORK=$(mktemp -d)
cleanup() {
	git worktree remove --force "$WORK/before" > /dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT

# The JDK's 'profile' settings with Java method sampling every millisecond
JAVA_HOME_DIR=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
sed 's|<setting name="period" control="method-sampling-java-interval">[^<]*<|<setting name="period" control="method-sampling-java-interval">1 ms<|' \
	"$JAVA_HOME_DIR/lib/jfr/profile.jfc" > "$WORK/sampling.jfc"

profile() {
	local label=$1 jar=$2 dir=$WORK/$1
	mkdir -p "$dir"
	# One fork on both sides, whatever the benchmark's own count: one recording each
	java -jar "$jar" 'LockCycleBenchmarks.EightThreads.lockTemplate' -f 1 -wi 2 -w 2s -i 3 -r 8s \
		-prof "jfr:dir=$dir;configName=$WORK/sampling.jfc" -rf json -rff "$dir/score.json" > "$dir/jmh.log" 2>&1
	python3 benchmarks/profile.py "$label" "$dir/score.json" "$(find "$dir" -name '*.jfr' | head -1)"
}

echo "Building the benchmarks of $BEFORE ..."
git worktree add --detach "$WORK/before" "$BEFORE" > /dev/null 2>&1
(cd "$WORK/before" && ./mvnw -q -B -P benchmarks -pl benchmarks -am package -Dmaven.test.skip=true > "$WORK/build.log" 2>&1) \
	|| { echo "The benchmarks of $BEFORE did not build (see $WORK/build.log)" >&2; exit 1; }

{
	printf '{"before_revision": "%s", "after_revision": "%s", "profiles": [\n' "$BEFORE" "$(git rev-parse --short HEAD)"
	profile before "$WORK/before/benchmarks/target/benchmarks.jar"
	printf ',\n'
	profile after benchmarks/target/benchmarks.jar
	printf ']}\n'
} > "$OUTPUT"
