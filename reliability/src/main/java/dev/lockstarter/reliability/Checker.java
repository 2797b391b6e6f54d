package dev.lockstarter.reliability;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the oracle's event log after a run (see {@link Oracle}) and finds what went
 * wrong.
 * <p>
 * <b>Overlaps</b>: per key, sections sorted by the sequence number of their entry; a
 * section that enters while an earlier one has not exited overlaps it. A section is
 * <em>valid</em> when its lease said it still held the lock after the section's exit was
 * recorded: the lock was then valid from its acquisition to that exit, since a lease
 * never becomes valid again once expired. Each overlap is classified by the two sections:
 * <ul>
 * <li><em>real</em>: both were valid (a section whose worker was killed inside counts as
 * valid, unless its lock told of its loss before the kill: see
 * {@link WorkerLock.LossReporting}): two holders at once while the lock was held as
 * promised. A section whose lock was refused by the store while its promise still ran
 * ({@link WorkerLock.PromiseReporting}) was held as promised up to its loss's record: an
 * overlap that began before that record is real too, however the section ended;</li>
 * <li><em>pause</em>: one of them was not valid, and its worker was stopped
 * ({@code SIGSTOP}) by the pause nemesis between its attempt to acquire and the check
 * after its exit: the documented non-guarantee of a process pause longer than the
 * time-to-live;</li>
 * <li><em>lost</em>: one of them was not valid, without a nemesis pause (for example a
 * holder starved of CPU past its time-to-live): reported by the lease, outside the
 * promise too, but counted apart;</li>
 * <li><em>store lost</em>: on a store whose fault may lose granted locks (a memcached
 * restart, a failover to a replica that had not received the lock), the first of them
 * entered before such a fault ended and the other after it began: the documented limit
 * "while the store keeps its data". On a store that keeps its data the same overlap is
 * real.</li>
 * </ul>
 * <b>Lost updates</b>: per key, counter writes minus the counter's final value. Each is
 * traced to the section that clobbered it (another section's write fell between its read
 * and its write) and classified like the overlap of the two sections.
 */
final class Checker {

	private Checker() {
	}

	/**
	 * Check a log.
	 * @param events the oracle's events
	 * @param counters the final value of each key's counter
	 * @param finished whether the workload has stopped: while it runs, a section whose
	 * lease was not asked yet is not counted as valid, so that only finished sections can
	 * make an overlap real
	 * @param faultLosesLocks whether the store's faults ({@code restart} marks) may lose
	 * granted locks, so that overlaps across one are classified {@link Cause#STORE_LOST}
	 * @return the findings
	 */
	static Findings check(List<String> events, Map<String, Long> counters, boolean finished, boolean faultLosesLocks) {
		Map<String, Section> sections = new HashMap<>();
		Map<String, List<long[]>> pauses = new HashMap<>();
		List<String[]> kills = new ArrayList<>();
		// Windows of faults that may lose locks: the seq of the start, then of the end
		List<long[]> storeLosses = new ArrayList<>();
		Findings findings = new Findings();
		for (String event : events) {
			String[] f = event.split(" ");
			long seq = Long.parseLong(f[1]);
			switch (f[0]) {
				case "E" -> {
					Section section = new Section(f[2], f[3], f[4], seq, Long.parseLong(f[6]), Long.parseLong(f[7]),
							Long.parseLong(f[8]));
					section.valid = finished;
					sections.put(section.sid, section);
					findings.tokensSeen |= !f[5].equals("0");
					findings.entered++;
					if (section.occupancy > 1) {
						findings.occupancyViolations++;
					}
				}
				case "R" -> sections.get(f[2]).readSeq = seq;
				case "W" -> {
					sections.get(f[2]).writeSeq = seq;
					findings.counterWrites++;
				}
				case "F" -> {
					findings.fencedWrites++;
					if (f[3].equals("0")) {
						findings.staleRejected++;
					}
				}
				case "X" -> {
					Section section = sections.get(f[2]);
					section.exitSeq = seq;
					section.endMillis = Long.parseLong(f[4]);
					if (f[3].equals("k")) {
						findings.killedInside++;
						// No exit asked the lock: valid unless it told of its loss
						section.valid = !section.lossTold;
						section.killed = true;
					}
					else {
						findings.completed++;
					}
				}
				case "M" -> {
					switch (f[2]) {
						case "held" -> {
							Section section = sections.get(f[3]);
							section.valid = f[4].equals("1");
							section.endMillis = Long.parseLong(f[5]);
							if (!section.valid) {
								findings.exitedNotHeld++;
							}
						}
						case "lost" -> {
							// Always before the kill's close: the harness closes a killed
							// worker's sections once its process is gone
							Section section = sections.get(f[3]);
							section.lossTold = true;
							section.lossSeq = seq;
							findings.lossesTold++;
						}
						case "promised" -> {
							// Recorded after the loss, once its worker found the promise
							// still running then
							Section section = sections.get(f[3]);
							section.promisedThroughSeq = section.lossSeq;
							findings.lossesWithinPromise++;
						}
						case "pause" -> {
							pauses.computeIfAbsent(f[3], (w) -> new ArrayList<>())
								.add(new long[] { Long.parseLong(f[4]), Long.MAX_VALUE });
							findings.pauses++;
						}
						case "resume" -> {
							List<long[]> windows = pauses.get(f[3]);
							windows.get(windows.size() - 1)[1] = Long.parseLong(f[4]);
						}
						case "kill" -> {
							kills.add(f);
							findings.kills++;
						}
						case "restart" -> {
							findings.restarts++;
							if (faultLosesLocks) {
								storeLosses.add(new long[] { seq, Long.MAX_VALUE });
							}
						}
						case "restarted" -> {
							if (faultLosesLocks && !storeLosses.isEmpty()) {
								storeLosses.get(storeLosses.size() - 1)[1] = seq;
							}
						}
						case "crash" -> findings.crashes++;
						case "clock" -> {
							findings.clockSteps++;
							findings.largestClockOffsetMillis = Math.max(findings.largestClockOffsetMillis,
									Math.abs(Long.parseLong(f[4])));
						}
						default -> {
						}
					}
				}
				default -> throw new IllegalStateException("Unknown oracle event '" + event + "'");
			}
		}
		Map<String, List<Section>> byKey = new HashMap<>();
		for (Section section : sections.values()) {
			byKey.computeIfAbsent(section.key, (k) -> new ArrayList<>()).add(section);
		}
		for (List<Section> keySections : byKey.values()) {
			keySections.sort(Comparator.comparingLong((Section s) -> s.entrySeq));
			findOverlaps(keySections, pauses, storeLosses, findings);
			findClobbers(keySections, pauses, storeLosses, findings);
		}
		long writes = 0;
		for (Map.Entry<String, List<Section>> entry : byKey.entrySet()) {
			writes = entry.getValue().stream().filter((s) -> s.writeSeq > 0).count();
			findings.lostUpdates += writes - counters.getOrDefault(entry.getKey(), 0L);
		}
		measureKillBlocks(kills, sections, byKey, findings);
		return findings;
	}

	/**
	 * Count the sections that exited (not killed) at least {@code millis} after they
	 * entered, on the harness's timeline: with this starter's lock, those whose lease was
	 * renewed.
	 * @param events the oracle's events
	 * @param millis the shortest length counted
	 * @return how many sections lasted that long
	 */
	static long sectionsLasting(List<String> events, long millis) {
		Map<String, Long> entries = new HashMap<>();
		long lasting = 0;
		for (String event : events) {
			String[] f = event.split(" ");
			if (f[0].equals("E")) {
				entries.put(f[2], Long.parseLong(f[7]));
			}
			else if (f[0].equals("X") && f[3].equals("x")) {
				Long entered = entries.get(f[2]);
				if (entered != null && Long.parseLong(f[4]) - entered >= millis) {
					lasting++;
				}
			}
		}
		return lasting;
	}

	private static void findOverlaps(List<Section> keySections, Map<String, List<long[]>> pauses,
			List<long[]> storeLosses, Findings findings) {
		List<Section> inside = new ArrayList<>();
		for (Section newcomer : keySections) {
			inside.removeIf((s) -> s.exitSeq < newcomer.entrySeq);
			if (!inside.isEmpty()) {
				Cause worst = Cause.PAUSE;
				for (Section holder : inside) {
					Cause cause = cause(holder, newcomer, newcomer.entrySeq, pauses, storeLosses);
					if (cause.ordinal() > worst.ordinal()) {
						worst = cause;
					}
				}
				findings.overlaps[worst.ordinal()]++;
				if (worst == Cause.REAL && findings.realExamples.size() < 5) {
					findings.realExamples.add(newcomer.sid + " entered " + newcomer.key + " while "
							+ inside.stream()
								.map((s) -> s.sid + " (valid " + s.valid + (s.killed ? ", killed" : "") + ")")
								.toList()
							+ " was inside");
				}
			}
			inside.add(newcomer);
		}
	}

	private static void findClobbers(List<Section> keySections, Map<String, List<long[]>> pauses,
			List<long[]> storeLosses, Findings findings) {
		List<Section> writers = keySections.stream()
			.filter((s) -> s.writeSeq > 0)
			.sorted(Comparator.comparingLong((Section s) -> s.writeSeq))
			.toList();
		long[] writeSeqs = writers.stream().mapToLong((s) -> s.writeSeq).toArray();
		for (Section writer : writers) {
			int from = lowerBound(writeSeqs, writer.readSeq);
			int to = lowerBound(writeSeqs, writer.writeSeq - 1);
			for (int i = from; i < to; i++) {
				// Classified as the overlap of the two sections: by the one that entered
				// first
				Section clobbered = writers.get(i);
				findings.clobbers[cause(clobbered, writer, clobbered.writeSeq, pauses, storeLosses).ordinal()]++;
			}
		}
	}

	/**
	 * Why two sections were inside at once, {@code at} the sequence number of an event
	 * recorded while both were (the later entry, or the clobbered write).
	 */
	private static Cause cause(Section one, Section other, long at, Map<String, List<long[]>> pauses,
			List<long[]> storeLosses) {
		if (pausedPastItsLease(one, pauses) || pausedPastItsLease(other, pauses)) {
			return Cause.PAUSE;
		}
		if (storeLostBetween(one, other, storeLosses)) {
			return Cause.STORE_LOST;
		}
		return (heldAsPromised(one, at) && heldAsPromised(other, at)) ? Cause.REAL : Cause.LOST;
	}

	/**
	 * Whether the section's lock was held as promised when the event {@code at} was
	 * recorded, while the section was inside: valid all along, or refused by the store
	 * while its promise ran, which it found after {@code at}.
	 */
	private static boolean heldAsPromised(Section section, long at) {
		return section.valid || at < section.promisedThroughSeq;
	}

	/**
	 * Whether the sections overlapped across a fault that may lose locks: the one that
	 * entered first did so before the fault ended, the other after it began. A failover
	 * is not one instant: until every client talks to the new primary, some may still
	 * reach the old one, or the old one restarted empty.
	 */
	private static boolean storeLostBetween(Section one, Section other, List<long[]> storeLosses) {
		long first = Math.min(one.entrySeq, other.entrySeq);
		long second = Math.max(one.entrySeq, other.entrySeq);
		for (long[] loss : storeLosses) {
			if (first < loss[1] && loss[0] < second) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether the section's worker was paused during it while its lease did not hold the
	 * lock: the lease said so at the exit, or the worker was killed inside after the
	 * pause, so that no exit said anything, and the pause (twice the TTL, with no renewal
	 * possible) outlasted the lock. A killed section that was not paused counts as valid,
	 * unless its lock told of its loss.
	 */
	private static boolean pausedPastItsLease(Section section, Map<String, List<long[]>> pauses) {
		return (!section.valid || section.killed) && paused(section, pauses);
	}

	/**
	 * Whether the section's worker was paused between its attempt to acquire and its end.
	 */
	private static boolean paused(Section section, Map<String, List<long[]>> pauses) {
		for (long[] pause : pauses.getOrDefault(section.worker, List.of())) {
			if (pause[0] <= section.endMillis && pause[1] >= section.attemptMillis) {
				return true;
			}
		}
		return false;
	}

	private static void measureKillBlocks(List<String[]> kills, Map<String, Section> sections,
			Map<String, List<Section>> byKey, Findings findings) {
		for (String[] kill : kills) {
			long killSeq = Long.parseLong(kill[1]);
			long killMillis = Long.parseLong(kill[4]);
			for (Section section : sections.values()) {
				if (section.worker.equals(kill[3]) && section.exitSeq > killSeq && section.entrySeq < killSeq) {
					byKey.get(section.key)
						.stream()
						.filter((s) -> s.entrySeq > killSeq)
						.findFirst()
						.ifPresent((next) -> findings.killBlocks.add(next.entryMillis - killMillis));
				}
			}
		}
	}

	/** Return the number of values up to {@code value}. */
	private static int lowerBound(long[] sorted, long value) {
		int low = 0;
		int high = sorted.length;
		while (low < high) {
			int mid = (low + high) >>> 1;
			if (sorted[mid] <= value) {
				low = mid + 1;
			}
			else {
				high = mid;
			}
		}
		return low;
	}

	/**
	 * Why two sections were inside at once, from the most to the least excusable.
	 */
	enum Cause {

		PAUSE, LOST, STORE_LOST, REAL

	}

	/**
	 * One critical section as the oracle saw it.
	 */
	private static final class Section {

		final String sid;

		final String key;

		final String worker;

		final long entrySeq;

		final long occupancy;

		final long entryMillis;

		final long attemptMillis;

		long readSeq;

		long writeSeq;

		long exitSeq = Long.MAX_VALUE;

		long endMillis = Long.MAX_VALUE;

		/**
		 * Whether the lease held the lock until the exit; killed counts as valid unless
		 * the lock told of its loss.
		 */
		boolean valid;

		/** Whether the section's lock told of its loss before the exit or the kill. */
		boolean lossTold;

		/** The sequence number of the loss's record, 0 if none. */
		long lossSeq;

		/**
		 * The sequence number up to which the lock was held as promised although the
		 * store refused it (its loss's record), 0 if it never was.
		 */
		long promisedThroughSeq;

		/** Whether the worker was killed inside the section. */
		boolean killed;

		Section(String sid, String key, String worker, long entrySeq, long occupancy, long entryMillis,
				long attemptMillis) {
			this.sid = sid;
			this.key = key;
			this.worker = worker;
			this.entrySeq = entrySeq;
			this.occupancy = occupancy;
			this.entryMillis = entryMillis;
			this.attemptMillis = attemptMillis;
		}

	}

}
