package dev.lockstarter.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The runs of the scheduled report, by tick (the second it was scheduled for), and the
 * checker of "each tick ran exactly once": a tick with more than one run, or a tick
 * missing between the first and the last that ran, is a violation. The first and last
 * ticks of the observation are boundaries: a tick before the first or after the last is
 * not looked for.
 *
 * @param ranBy the instances that ran each tick, in order
 */
record ReportRuns(SortedMap<Long, List<String>> ranBy) {

	ReportRuns(Map<Long, List<String>> ranBy) {
		this(new TreeMap<>(ranBy));
	}

	/**
	 * Return the violations of "each tick ran exactly once", for people.
	 * @return the violations, empty if there are none
	 */
	List<String> violations() {
		List<String> violations = new ArrayList<>();
		if (this.ranBy.isEmpty()) {
			return List.of("no tick ran");
		}
		for (long tick = this.ranBy.firstKey(); tick <= this.ranBy.lastKey(); tick++) {
			List<String> instances = this.ranBy.get(tick);
			if (instances == null || instances.isEmpty()) {
				violations.add("tick " + tick + " did not run");
			}
			else if (instances.size() > 1) {
				violations.add("tick " + tick + " ran " + instances.size() + " times, by " + instances);
			}
		}
		return violations;
	}

}
