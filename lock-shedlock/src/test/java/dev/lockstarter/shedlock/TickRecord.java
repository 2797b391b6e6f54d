package dev.lockstarter.shedlock;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The double-run checker of a job scheduled every second on several instances: records,
 * by tick (the second the run was scheduled for), which instances fired the tick and
 * which ran it, and reports the ticks that ran more than once or fired without running.
 */
final class TickRecord {

	/** A tick that fires this early still counts as its own second. */
	private static final long EARLY_MILLIS = 100;

	private final Map<Long, List<String>> firedBy = new ConcurrentSkipListMap<>();

	private final Map<Long, List<String>> ranBy = new ConcurrentSkipListMap<>();

	/**
	 * Record that an instance fired the current tick: its scheduler called the job.
	 * @param instance the instance's name
	 */
	void fired(String instance) {
		this.firedBy.computeIfAbsent(currentTick(), (tick) -> new CopyOnWriteArrayList<>()).add(instance);
	}

	/**
	 * Record that an instance ran the current tick: the job's body ran.
	 * @param instance the instance's name
	 */
	void ran(String instance) {
		this.ranBy.computeIfAbsent(currentTick(), (tick) -> new CopyOnWriteArrayList<>()).add(instance);
	}

	/**
	 * Return the instances that ran each tick.
	 * @return the runs by tick, in tick order
	 */
	SortedMap<Long, List<String>> ranBy() {
		return new TreeMap<>(this.ranBy);
	}

	/**
	 * Return the ticks that ran more than once, with the instances that ran them.
	 * @return the double runs by tick
	 */
	SortedMap<Long, List<String>> doubleRuns() {
		SortedMap<Long, List<String>> doubleRuns = new TreeMap<>();
		this.ranBy.forEach((tick, instances) -> {
			if (instances.size() > 1) {
				doubleRuns.put(tick, List.copyOf(instances));
			}
		});
		return doubleRuns;
	}

	/**
	 * Return the ticks that some instance fired and none ran.
	 * @return the ticks, in order
	 */
	Set<Long> missedTicks() {
		Set<Long> missed = new TreeSet<>(this.firedBy.keySet());
		missed.removeAll(this.ranBy.keySet());
		return missed;
	}

	/**
	 * Return the ticks that every one of the given instances fired.
	 * @param instances the instances' names
	 * @return the ticks, in order
	 */
	Set<Long> firedByAll(Set<String> instances) {
		Set<Long> ticks = new TreeSet<>();
		this.firedBy.forEach((tick, firing) -> {
			if (Set.copyOf(firing).containsAll(instances)) {
				ticks.add(tick);
			}
		});
		return ticks;
	}

	int ticksRun() {
		return this.ranBy.size();
	}

	/**
	 * Return the tick being fired now: the current second, or the next one if it begins
	 * within 100 ms.
	 */
	static long currentTick() {
		return (System.currentTimeMillis() + EARLY_MILLIS) / 1000;
	}

	@Override
	public String toString() {
		return "fired by " + new TreeMap<>(this.firedBy) + ", ran by " + ranBy();
	}

}
