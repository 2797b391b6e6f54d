# Sourced by the benchmark scripts that measure one JMH class beside its peers:
#
#   jmh_in_passes OUT_DIR CLASS PASSES [JMH ARGUMENTS...]
#
# runs each benchmark of CLASS once per pass, one fork each time, the passes taking the benchmarks in
# opposite orders: a drift of the machine's load over the run then falls on every benchmark alike, where
# one JMH run of several forks would measure the last benchmarks in another load than the first. Writes
# OUT_DIR/jmh-<pass>-<benchmark>.json and OUT_DIR/jmh.log, and records the command in
# OUT_DIR/commands-run.txt. Expects JAR to name the benchmarks' jar.

jmh_in_passes() {
	local out=$1 class=$2 passes=$3
	shift 3
	local benchmarks order benchmark name pass i
	mapfile -t benchmarks < <(java -jar "$JAR" -l "$class" | grep '^dev\.')
	[ "${#benchmarks[@]}" -gt 0 ] || { echo "No $class in $JAR" >&2; return 1; }
	echo "java -jar $JAR -f 1 -prof gc -rf json -rff $out/jmh-<pass>-<benchmark>.json ${*:+$* }'^<benchmark>\$'   # each of the ${#benchmarks[@]} $class, in $passes passes taking them in opposite orders" \
		>> "$out/commands-run.txt"
	for pass in $(seq 1 "$passes"); do
		if [ $((pass % 2)) -eq 1 ]; then
			order=("${benchmarks[@]}")
		else
			order=()
			for ((i = ${#benchmarks[@]} - 1; i >= 0; i--)); do order+=("${benchmarks[i]}"); done
		fi
		for benchmark in "${order[@]}"; do
			echo "== Pass $pass of $passes: $benchmark"
			name=${benchmark#dev.lockstarter.benchmarks.$class.}
			java -jar "$JAR" -f 1 -prof gc -rf json -rff "$out/jmh-$pass-$name.json" "$@" \
				"^${benchmark//./\\.}\$" >> "$out/jmh.log" 2>&1 || { tail -n 40 "$out/jmh.log" >&2; return 1; }
			[ -s "$out/jmh-$pass-$name.json" ] || { echo "JMH wrote no results for $benchmark" >&2; return 1; }
			grep -E "^$class\.[A-Za-z]+(\.[A-Za-z]+)? +thrpt" "$out/jmh.log" | tail -n 1
		done
	done
}
