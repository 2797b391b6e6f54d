package dev.lockstarter.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The runs and skips of the scheduled report, by tick (the second it was scheduled for),
 * and the checker of "each tick ran exactly once". Between the first and the last tick
 * observed:
 * <ul>
 * <li>a tick that ran more than once, or that an instance fired and none ran (every
 * instance skipped it), is a violation;</li>
 * <li>a tick that no instance fired at all (no run, no skip) is {@linkplain #unfired()
 * unfired}: the schedulers of both instances were held up past it, which says nothing
 * about the lock, and is reported apart.</li>
 * </ul>
 * Ticks before the first or after the last observed one are not looked for.
 *
 * @param ranBy the instances that ran each tick, in order
 * @param skippedBy the instances that skipped each tick
 */
record ReportRuns(SortedMap<Long, List<String>> ranBy, SortedMap<Long, List<String>> skippedBy) {

	ReportRuns(Map<Long, List<String>> ranBy, Map<Long, List<String>> skippedBy) {
		this(new TreeMap<>(ranBy), new TreeMap<>(skippedBy));
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
		for (long tick : observedTicks()) {
			List<String> ran = this.ranBy.getOrDefault(tick, List.of());
			List<String> skipped = this.skippedBy.getOrDefault(tick, List.of());
			if (ran.size() > 1) {
				violations.add("tick " + tick + " ran " + ran.size() + " times, by " + ran);
			}
			else if (ran.isEmpty() && !skipped.isEmpty()) {
				violations.add("tick " + tick + " did not run: skipped by " + skipped);
			}
		}
		return violations;
	}

	/**
	 * Return the ticks between the first and the last observed that no instance fired.
	 * @return the unfired ticks
	 */
	List<Long> unfired() {
		return observedTicks().stream()
			.filter((tick) -> !this.ranBy.containsKey(tick) && !this.skippedBy.containsKey(tick))
			.toList();
	}

	private List<Long> observedTicks() {
		TreeSet<Long> observed = new TreeSet<>(this.ranBy.keySet());
		observed.addAll(this.skippedBy.keySet());
		List<Long> ticks = new ArrayList<>();
		if (!observed.isEmpty()) {
			for (long tick = observed.first(); tick <= observed.last(); tick++) {
				ticks.add(tick);
			}
		}
		return ticks;
	}

}
