package dev.lockstarter.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A lock of the comparison with the peers: this starter's on one of the peers' servers,
 * or a {@link PeerLock}.
 *
 * @param name its name in scenario names, such as {@code ours-redis} or
 * {@code redisson-rlock}
 * @param store the worker's store argument
 * @param backend the servers it runs on
 * @param library the library and its lock, for the report
 * @param fencing whether it issues fencing tokens
 * @param setup how it is set up and used
 * @param heldWhen when a section counts as held as promised
 * @param faults the faults it runs under
 */
record ComparedLock(String name, String store, Backend backend, String library, boolean fencing, String setup,
		String heldWhen, List<PeerFault> faults) {

	private static final String OUR_SETUP = "`LockTemplate.tryAcquire` with a TTL of 1 s, waiting up to 2 × TTL, "
			+ "renewal on (every third of the TTL), fencing tokens read; every store call bounded by 2 s";

	private static final String OUR_HELD_WHEN = "`Lease.isHeld()` after the exit: a local, conservative estimate "
			+ "(the send time of the last confirmed acquisition or renewal, plus the TTL less a margin, on the "
			+ "monotonic clock)";

	/**
	 * The backends the peers run on, in the order of the report.
	 */
	static final List<Backend> BACKENDS = List.of(Backend.REDIS, Backend.SENTINEL, Backend.JDBC, Backend.ZOOKEEPER,
			Backend.ETCD);

	/**
	 * Every lock of the comparison: per backend, this starter's lock first, then the
	 * peers on the same servers. On Sentinel only the failover runs: the other faults
	 * meet the same client code as on one Redis.
	 * @return the locks
	 */
	static List<ComparedLock> all() {
		List<ComparedLock> locks = new ArrayList<>();
		for (Backend backend : BACKENDS) {
			List<PeerFault> faults = faults(backend);
			locks.add(new ComparedLock("ours-" + backend.name().toLowerCase(Locale.ROOT), Worker.OURS, backend,
					"this starter's `LockTemplate`", true, OUR_SETUP, OUR_HELD_WHEN, faults));
			for (PeerLock peer : PeerLock.values()) {
				if (peer.backend() == backend) {
					locks.add(new ComparedLock(peer.scenarioName(), peer.scenarioName(), backend, peer.library(),
							peer.fencing(), peer.setup(), peer.heldWhen(), faults));
				}
			}
		}
		return locks;
	}

	private static List<PeerFault> faults(Backend backend) {
		return (backend == Backend.SENTINEL) ? List.of(PeerFault.STORE) : List.of(PeerFault.values());
	}

	/**
	 * How long each of its scenarios runs: every lock gets the same time in all, so that
	 * a lock that runs under the failover alone runs that one longer.
	 * @param duration how long a scenario runs for a lock under every fault
	 * @return its scenarios' duration
	 */
	Duration scenarioDuration(Duration duration) {
		return duration.multipliedBy(PeerFault.values().length).dividedBy(this.faults.size());
	}

	/** Whether it is this starter's lock. */
	boolean isOurs() {
		return Worker.OURS.equals(this.store);
	}

}
