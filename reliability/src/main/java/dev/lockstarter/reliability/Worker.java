package dev.lockstarter.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockCapabilities;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A worker process of the reliability harness: several threads run critical sections on a
 * few keys until the oracle's {@code stop} key appears, each section recorded in the
 * oracle (see {@link Oracle}). A section, while holding the lock on its key: enter
 * (occupancy and sequence number), read the counter, sleep a little, write the counter +
 * 1, write the lease's fencing token to the fenced register, exit.
 * <p>
 * With store {@code ours}, locks come from {@link LockTemplate} on the {@link Backend}'s
 * store (waiting for up to twice the time-to-live, renewal on); with
 * {@value #OURS_DETACHED}, detached leases acquired on one instance of the store and
 * renewed on another ({@link DetachedWorkerLock}). With a {@link BrokenLockStore.Flaw}
 * name, locks come from that broken store, used as a hand-written lock would be: try,
 * poll every 5 ms, release at the end, no renewal; so is {@value #OWNER_BLIND}
 * ({@link OwnerBlindLockStore}). With a {@link PeerLock} name, locks come from that peer
 * library, set up as its documentation recommends.
 * <p>
 * Arguments: the {@link Backend}, the store's address (see {@link WorkerStores}; a broken
 * lock always runs on one Redis, {@code host:port}), oracle Redis host and port, worker
 * id, threads, keys (comma-separated), store, time-to-live in milliseconds, longest sleep
 * inside a section in milliseconds. Prints {@value #READY} once its threads run.
 *
 * @since 0.1.0
 */
public final class Worker {

	/** Printed on standard output once the worker runs. */
	public static final String READY = "READY";

	/** The store argument that selects this starter's lock. */
	public static final String OURS = "ours";

	/**
	 * The store argument that selects this starter's lock as the lock server uses it, on
	 * two instances ({@link DetachedWorkerLock}).
	 */
	public static final String OURS_DETACHED = "ours-detached";

	/**
	 * The store argument that selects {@link OwnerBlindLockStore} on the backend's store.
	 */
	public static final String OWNER_BLIND = "owner-blind";

	/** One section in this many is a long one, see {@link #sleepInside}. */
	static final int LONG_SECTION_EVERY = 1500;

	/**
	 * One section in this many is a long one with {@value #OURS_DETACHED}: its renewals
	 * on the second instance are what its scenarios exercise.
	 */
	static final int DETACHED_LONG_SECTION_EVERY = 25;

	/** The shortest long section, in times the time-to-live. */
	static final int LONG_SECTION_MIN_TTLS = 2;

	/** The longest long section, in times the time-to-live. */
	static final int LONG_SECTION_MAX_TTLS = 3;

	private static final String KEY_PREFIX = "lock:";

	private Worker() {
	}

	/**
	 * Return the Redis key that holds the lock on a key of the workload: with this
	 * starter's lock, {@code RedisLockStore}'s layout, in which the part of the store key
	 * after the prefix is a hash tag (<code>lock:{k0}</code>); with a broken lock, the
	 * store key itself ({@code lock:k0}).
	 * @param key the key of the workload, such as {@code k0}
	 * @param ours whether this starter's lock holds it
	 * @return the Redis key
	 */
	static String redisKey(String key, boolean ours) {
		return ours ? KEY_PREFIX + "{" + key + "}" : KEY_PREFIX + key;
	}

	/**
	 * Run the worker until the oracle says stop.
	 * @param args see the class description
	 * @throws Exception if interrupted while waiting for the threads, or the store cannot
	 * be closed
	 */
	public static void main(String[] args) throws Exception {
		Backend backend = Backend.valueOf(args[0]);
		String address = args[1];
		Oracle oracle = new Oracle(args[2], Integer.parseInt(args[3]));
		String worker = args[4];
		int threads = Integer.parseInt(args[5]);
		List<String> keys = List.of(args[6].split(","));
		String store = args[7];
		Duration ttl = Duration.ofMillis(Long.parseLong(args[8]));
		int maxSleep = Integer.parseInt(args[9]);
		WorkerLock lock = open(backend, address, store, ttl);
		ProcessHandle harness = ProcessHandle.current().parent().orElse(null);
		Thread stopWatcher = new Thread(() -> {
			int failures = 0;
			while (!Stop.requested) {
				try {
					Thread.sleep(100);
					// Also stop if the harness died without asking, so that no worker
					// outlives it
					Stop.requested = oracle.isStopped() || (harness != null && !harness.isAlive());
					failures = 0;
				}
				catch (InterruptedException ex) {
					return;
				}
				catch (RuntimeException ex) {
					// The oracle is never faulted: gone for 30 s means the harness is
					// gone
					Stop.requested = ++failures > 300;
				}
			}
		}, "stop-watcher");
		stopWatcher.setDaemon(true);
		stopWatcher.start();
		List<Thread> running = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			String prefix = worker + "-" + t + "-";
			int longEvery = OURS_DETACHED.equals(store) ? DETACHED_LONG_SECTION_EVERY : LONG_SECTION_EVERY;
			Thread thread = new Thread(
					() -> run(oracle, lock, worker, prefix, keys, maxSleep, ttl.toMillis(), longEvery),
					prefix + "sections");
			running.add(thread);
			thread.start();
		}
		System.out.println(READY);
		System.out.flush();
		for (Thread thread : running) {
			thread.join();
		}
		lock.close();
		oracle.close();
		System.exit(0);
	}

	/**
	 * Open the lock a worker takes: this starter's {@link LockTemplate} on the backend's
	 * store, waiting for up to twice the time-to-live, renewal on; a broken lock, used as
	 * a hand-written lock would be (try, poll every 5 ms, release at the end, no
	 * renewal); or a peer library's ({@link PeerLock}).
	 */
	static WorkerLock open(Backend backend, String address, String store, Duration ttl) {
		if (OURS.equals(store)) {
			WorkerStores.Opened opened = WorkerStores.open(backend, address);
			LockTemplate locks = new LockTemplate(opened.store(), KEY_PREFIX);
			LockOptions options = LockOptions.ttl(ttl).withWaitTime(ttl.multipliedBy(2));
			return WorkerLock.acquiring((key) -> {
				LockAttempt attempt = locks.tryAcquire(key, options);
				return attempt.isAcquired() ? new LeaseHeld(attempt.lease()) : null;
			}, () -> {
				locks.destroy();
				opened.resources().close();
			});
		}
		if (OURS_DETACHED.equals(store)) {
			return DetachedWorkerLock.open(backend, address, KEY_PREFIX, ttl);
		}
		if (OWNER_BLIND.equals(store)) {
			WorkerStores.Opened opened = WorkerStores.openOwnerBlind(backend, address);
			return WorkerLock.acquiring(
					(key) -> RawHeld.acquire(opened.store(), KEY_PREFIX + key, ttl, ttl.multipliedBy(2)),
					opened.resources());
		}
		PeerLock peer = PeerLock.named(store);
		if (peer != null) {
			return peer.open(address, ttl);
		}
		String[] hostPort = address.split(":");
		LettuceConnectionFactory lockConnections = Oracle.connectionFactory(hostPort[0], Integer.parseInt(hostPort[1]),
				StoreUnderTest.STORE_TIMEOUT);
		LockStore broken = new BrokenLockStore(BrokenLockStore.Flaw.valueOf(store),
				new StringRedisTemplate(lockConnections));
		return WorkerLock.acquiring((key) -> RawHeld.acquire(broken, KEY_PREFIX + key, ttl, ttl.multipliedBy(2)),
				lockConnections::destroy);
	}

	private static void run(Oracle oracle, WorkerLock lock, String worker, String sidPrefix, List<String> keys,
			int maxSleep, long ttlMillis, int longEvery) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		long[] sections = new long[1];
		while (!Stop.requested) {
			String key = keys.get(random.nextInt(keys.size()));
			try {
				long attemptMillis = Oracle.now();
				lock.runLocked(key, (holding) -> {
					oracle.holding(worker, 1);
					try {
						String sid = sidPrefix + (sections[0]++);
						oracle.enter(key, sid, worker, holding.fencingToken(), attemptMillis);
						if (holding instanceof WorkerLock.LossReporting reporting) {
							// After the entry, so that the checker knows the section
							reporting.whenLost(() -> lost(oracle, sid, holding));
						}
						Oracle.Read read = oracle.read(key, sid, holding.fencingToken());
						Thread.sleep(sleepInside(random, maxSleep, ttlMillis, longEvery));
						oracle.write(key, sid, read.counter() + 1);
						oracle.fencedWrite(key, sid, holding.fencingToken(), read.fencedCounter() + 1);
						oracle.exit(key, sid);
						// Asked after the exit is recorded: true means the lock was valid
						// all along
						oracle.checked(sid, holding.isHeld());
					}
					finally {
						oracle.holding(worker, -1);
					}
				});
			}
			catch (InterruptedException ex) {
				return;
			}
			catch (RuntimeException ex) {
				// A lock store that cannot be reached (restart): the section does not run
				System.err.println(Thread.currentThread().getName() + ": " + ex);
				try {
					Thread.sleep(50);
				}
				catch (InterruptedException interrupted) {
					return;
				}
			}
		}
	}

	/**
	 * Record a section's loss, then, if its lock's promise still ran once that record was
	 * made, that too: the store refused a holder that kept its side of the promise, and
	 * the checker counts the lock held as promised up to the loss's record.
	 */
	private static void lost(Oracle oracle, String sid, WorkerLock.Holding holding) {
		oracle.lost(sid);
		// Asked after the loss is recorded, as the exit's check is
		if (holding instanceof WorkerLock.PromiseReporting promise && promise.isWithinPromise()) {
			oracle.lostWithinPromise(sid);
		}
	}

	/**
	 * How long a section sleeps between the counter's read and write: 1 to
	 * {@code maxSleep} ms, except one section in {@code longEvery}
	 * ({@value #LONG_SECTION_EVERY} by default), which takes two to three times the
	 * time-to-live (its lock is renewed), so that some sections are in progress while the
	 * store fails and its clients reconnect (about a second).
	 */
	static long sleepInside(ThreadLocalRandom random, int maxSleep, long ttlMillis, int longEvery) {
		if (random.nextInt(longEvery) == 0) {
			return LONG_SECTION_MIN_TTLS * ttlMillis
					+ random.nextLong((LONG_SECTION_MAX_TTLS - LONG_SECTION_MIN_TTLS) * ttlMillis);
		}
		return 1 + random.nextInt(maxSleep);
	}

	/**
	 * Whether the harness asked the worker to stop.
	 */
	private static final class Stop {

		static volatile boolean requested;

	}

	private record LeaseHeld(Lease lease) implements WorkerLock.Held, WorkerLock.LossReporting {

		@Override
		public long fencingToken() {
			return this.lease.fencingToken();
		}

		@Override
		public boolean isHeld() {
			return this.lease.isHeld();
		}

		@Override
		public void whenLost(Runnable action) {
			LockCapabilities.lossNotifying(this.lease)
				.orElseThrow(() -> new IllegalStateException("Not a lease that tells of its loss: " + this.lease))
				.whenLost((reason) -> action.run());
		}

		@Override
		public void release() {
			this.lease.close();
		}

	}

	/**
	 * A lock taken straight from a store, as a hand-written lock does it.
	 */
	private record RawHeld(LockStore store, String storeKey, String token, long acquiredAt,
			Duration ttl) implements WorkerLock.Held {

		static @Nullable RawHeld acquire(LockStore store, String storeKey, Duration ttl, Duration wait)
				throws InterruptedException {
			String token = Long.toHexString(ThreadLocalRandom.current().nextLong())
					+ Long.toHexString(ThreadLocalRandom.current().nextLong());
			return WorkerLock.poll(wait, () -> {
				long sentAt = System.nanoTime();
				AcquireReply result = store.tryAcquire(storeKey, token, ttl);
				return result.isAcquired() ? new RawHeld(store, storeKey, token, sentAt, ttl) : null;
			});
		}

		@Override
		public long fencingToken() {
			return 0;
		}

		@Override
		public boolean isHeld() {
			return System.nanoTime() - this.acquiredAt < this.ttl.toNanos();
		}

		@Override
		public void release() {
			this.store.release(this.storeKey, this.token);
		}

	}

}
