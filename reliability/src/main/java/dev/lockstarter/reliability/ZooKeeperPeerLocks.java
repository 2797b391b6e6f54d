package dev.lockstarter.reliability;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;

/**
 * The peer locks on ZooKeeper, each on a Curator client of its own, built as Curator's
 * getting-started guide builds one: the servers, a session timeout (the harness's
 * time-to-live), a connection timeout ({@link StoreUnderTest#STORE_TIMEOUT}) and an
 * exponential back-off retry policy of three retries. The guide's base sleep of a second
 * is scaled down to 100 ms, so that the retries of one call sleep for 1.1 seconds at most
 * in all, within the store timeout. Both locks are Curator's {@link InterProcessMutex},
 * taken with a wait of twice the session timeout. The mutex creates its node in protected
 * mode: a creation whose answer is lost is found again, or deleted in the background, so
 * an abandoned attempt leaves no node that holds the lock behind the caller's back; an
 * attempt that times out deletes its node before it returns.
 * <ul>
 * <li>{@link #curator}: the mutex itself, one per key on {@code /peer-locks/<key>}.
 * Curator's documentation of its locks (the error handling section of the recipe, and the
 * tech note on JVM pauses and session timeouts) asks the holder to listen to the
 * connection state: while the connection is {@code SUSPENDED} the lock must be taken as
 * lost for the time being, the holder no longer being sure that it has it; once the
 * connection is {@code LOST}, the lock is certainly gone.
 * {@link WorkerLock.Holding#isHeld()} is that listener's answer, taken strictly: true
 * only if no state but connected ones was reported from just before the acquisition to
 * the question, the client still says it is connected, and the calling thread still owns
 * the mutex. The recipe lets a later {@code RECONNECTED} restore the holder's certainty;
 * here it does not, as the section ran for a while without it.</li>
 * <li>{@link #springIntegration}: Spring Integration's {@link ZookeeperLockRegistry} on
 * its default root ({@value #SPRING_INTEGRATION_ROOT}), the lock taken with
 * {@code obtain(key).tryLock(wait)}. Spring Integration reports a lost lock by an
 * {@code unlock()} that throws, so {@link WorkerLock.Holding#isHeld()} unlocks and
 * answers whether that did not throw. Its unlock is the mutex's release, which deletes
 * the lock's node and ignores a node that no longer exists: when the session expired
 * while the lock was held (the servers deleting the node) and the client has a new
 * session by the time of the unlock, the unlock succeeds and the lost lock goes
 * unreported. The unlock throws only when the delete itself cannot be done, the servers
 * being out of reach through all the retries, or when the calling thread does not own the
 * mutex.</li>
 * </ul>
 */
final class ZooKeeperPeerLocks {

	/** The parent of the {@link #curator} locks' nodes. */
	static final String CURATOR_BASE_PATH = "/peer-locks";

	/**
	 * The root of the {@link #springIntegration} locks' nodes: the registry's default.
	 */
	static final String SPRING_INTEGRATION_ROOT = "/SpringIntegration-LockRegistry";

	private static final int RETRY_BASE_SLEEP_MILLIS = 100;

	private static final int MAX_RETRIES = 3;

	private ZooKeeperPeerLocks() {
	}

	/**
	 * Curator's {@link InterProcessMutex}, judged by the connection state of its client.
	 * @param connectString the servers, {@code host:port} separated by commas
	 * @param sessionTimeout the session timeout, the harness's time-to-live (the servers
	 * clamp it to their minimum and maximum)
	 * @return the lock
	 */
	static WorkerLock curator(String connectString, Duration sessionTimeout) {
		CuratorFramework client = start(connectString, sessionTimeout);
		ConnectionWatch connection = new ConnectionWatch(client);
		Map<String, InterProcessMutex> mutexes = new ConcurrentHashMap<>();
		long waitMillis = sessionTimeout.toMillis() * 2;
		return WorkerLock.acquiring((key) -> {
			InterProcessMutex mutex = mutexes.computeIfAbsent(key,
					(name) -> new InterProcessMutex(client, CURATOR_BASE_PATH + "/" + name));
			long interruptions = connection.interruptions();
			try {
				if (!mutex.acquire(waitMillis, TimeUnit.MILLISECONDS)) {
					return null;
				}
			}
			catch (InterruptedException ex) {
				throw ex;
			}
			catch (Exception ex) {
				// The servers could not be reached in time: not acquired
				return null;
			}
			return new CuratorHeld(mutex, connection, interruptions);
		}, client::close);
	}

	/**
	 * Spring Integration's {@link ZookeeperLockRegistry}, judged by its unlock.
	 * @param connectString the servers, {@code host:port} separated by commas
	 * @param sessionTimeout the session timeout, the harness's time-to-live (the servers
	 * clamp it to their minimum and maximum)
	 * @return the lock
	 */
	static WorkerLock springIntegration(String connectString, Duration sessionTimeout) {
		CuratorFramework client = start(connectString, sessionTimeout);
		ZookeeperLockRegistry registry = new ZookeeperLockRegistry(client, SPRING_INTEGRATION_ROOT);
		long waitMillis = sessionTimeout.toMillis() * 2;
		return WorkerLock.acquiring((key) -> {
			Lock lock = registry.obtain(key);
			boolean acquired;
			try {
				acquired = lock.tryLock(waitMillis, TimeUnit.MILLISECONDS);
			}
			catch (RuntimeException ex) {
				// The servers could not be reached in time: not acquired
				return null;
			}
			return acquired ? new UnlockChecked(lock) : null;
		}, () -> {
			registry.destroy();
			client.close();
		});
	}

	private static CuratorFramework start(String connectString, Duration sessionTimeout) {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.sessionTimeoutMs(millis(sessionTimeout))
			.connectionTimeoutMs(millis(StoreUnderTest.STORE_TIMEOUT))
			.retryPolicy(new ExponentialBackoffRetry(RETRY_BASE_SLEEP_MILLIS, MAX_RETRIES))
			.build();
		client.start();
		return client;
	}

	private static int millis(Duration duration) {
		return (int) Math.min(Integer.MAX_VALUE, duration.toMillis());
	}

	/**
	 * Counts the connection states of a client that are not connected ({@code SUSPENDED},
	 * {@code LOST}), as Curator reports them to its listeners.
	 */
	private static final class ConnectionWatch {

		private final CuratorFramework client;

		private final AtomicLong interruptions = new AtomicLong();

		ConnectionWatch(CuratorFramework client) {
			this.client = client;
			client.getConnectionStateListenable().addListener((source, state) -> {
				if (!state.isConnected()) {
					this.interruptions.incrementAndGet();
				}
			});
		}

		long interruptions() {
			return this.interruptions.get();
		}

		/**
		 * Whether no interruption was reported since a count was taken, and the client
		 * says it is connected now.
		 */
		boolean uninterruptedSince(long interruptions) {
			return this.interruptions.get() == interruptions && this.client.getZookeeperClient().isConnected();
		}

	}

	private record CuratorHeld(InterProcessMutex mutex, ConnectionWatch connection,
			long interruptions) implements WorkerLock.Held {

		@Override
		public long fencingToken() {
			return 0;
		}

		@Override
		public boolean isHeld() {
			return this.connection.uninterruptedSince(this.interruptions) && this.mutex.isOwnedByCurrentThread();
		}

		@Override
		public void release() {
			try {
				this.mutex.release();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (Exception ex) {
				// The node is deleted by the session's end, or by Curator's guaranteed
				// delete once the servers answer again
			}
		}

	}

}
