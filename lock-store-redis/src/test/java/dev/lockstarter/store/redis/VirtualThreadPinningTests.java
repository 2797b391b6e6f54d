package dev.lockstarter.store.redis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waiting for a lock on virtual threads, as an application with
 * {@code spring.threads.virtual.enabled=true} does (its request and task threads are
 * virtual): many more waiters than carrier threads, on a real Redis and on the in-memory
 * store, with a JFR recording of {@code jdk.VirtualThreadPinned} events (threshold 0)
 * that must stay empty. The waits (release notification or backoff poll), the renewals of
 * held leases and the releases must not block a carrier thread, and every waiter must get
 * its lock. A control proves that the recording sees pinning where there is some. From
 * JDK 24 (JEP 491), blocking inside {@code synchronized} no longer pins, so there the
 * recording catches the remaining causes (native frames, class initializers); on JDK 21
 * to 23 it catches {@code synchronized} around a wait as well. The main code of
 * {@code lock-core} and {@code lock-store-redis} guards its waits with
 * {@code ReentrantLock}, never with {@code synchronized}.
 * <p>
 * Virtual threads need Java 21; this class is compiled for Java 17, so it reaches them by
 * reflection.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadPinningTests {

	/** Far more than the carrier threads (one per core by default). */
	private static final int WAITERS = 400;

	/** Waiters that line up for one key, each holding it briefly. */
	private static final int QUEUED = 40;

	private static final long TIMEOUT_SECONDS = 60;

	private static final String OK = "ok";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void createConnectionFactory() {
		connectionFactory = RedisLockOperationsContractTests.connectionFactory(redis.host(), redis.port());
	}

	@AfterAll
	static void destroyConnectionFactory() {
		connectionFactory.destroy();
	}

	@Test
	void waitersOnRedisDoNotPinCarrierThreadsAndAllGetTheirLocks() throws Exception {
		RedisLockStore store = new RedisLockStore(connectionFactory);
		try {
			assertNoPinning(store, "redis");
		}
		finally {
			store.destroy();
		}
	}

	@Test
	void waitersOnTheInMemoryStoreDoNotPinCarrierThreadsAndAllGetTheirLocks() throws Exception {
		assertNoPinning(new InMemoryLockStore(), "memory");
	}

	@Test
	void recordingSeesAVirtualThreadThatBlocksWhilePinned() throws Exception {
		List<RecordedEvent> pinned = recordPinning(() -> {
			ExecutorService executor = virtualThreads();
			try {
				// Parking in a class initializer pins on every JDK with virtual threads;
				// parking in a synchronized block pins before JDK 24
				Future<?> initializer = executor.submit(() -> PinsWhileInitializing.VALUE);
				Object monitor = new Object();
				Future<?> synchronizedSleep = executor.submit(() -> {
					synchronized (monitor) {
						LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
					}
				});
				initializer.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
				synchronizedSleep.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
			}
			finally {
				executor.shutdownNow();
			}
		});
		assertThat(pinned).isNotEmpty();
	}

	private void assertNoPinning(LockStore store, String prefix) throws Exception {
		LockTemplate locks = new LockTemplate(store, "vt-" + prefix + ":");
		AtomicInteger acquired = new AtomicInteger();
		try {
			// Load and initialize the classes of the path first: a virtual thread that
			// loads a class pins its carrier meanwhile, once per class
			waitForHeldLocks(locks, "warm-up-", 8);
			queueForOneKey(locks, "warm-up", 4);
			List<RecordedEvent> pinned = recordPinning(() -> {
				acquired.addAndGet(waitForHeldLocks(locks, "key-", WAITERS));
				acquired.addAndGet(queueForOneKey(locks, "queue", QUEUED));
			}).stream().filter((event) -> !isJdkClassInitialization(event)).toList();
			assertThat(pinned).as(() -> "pinned virtual threads:\n" + describe(pinned)).isEmpty();
			assertThat(acquired).hasValue(WAITERS + QUEUED);
		}
		finally {
			locks.destroy();
		}
	}

	/**
	 * Hold {@code count} keys, start one virtual thread waiting for each, and release
	 * them from another virtual thread once every waiter is waiting. Waiters hold their
	 * lock across a renewal before they release it.
	 */
	private int waitForHeldLocks(LockTemplate locks, String prefix, int count) throws Exception {
		List<Lease> held = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			held.add(locks.acquire(prefix + i, Duration.ofSeconds(30)));
		}
		CountDownLatch waiting = new CountDownLatch(count);
		Queue<Thread> waiterThreads = new ConcurrentLinkedQueue<>();
		List<Future<String>> waiters = new ArrayList<>();
		ExecutorService executor = virtualThreads();
		try {
			for (int i = 0; i < count; i++) {
				String key = prefix + i;
				waiters.add(executor.submit(() -> {
					// No assertion in here: AssertJ's classes would be loaded on a
					// virtual thread
					boolean virtual = isVirtual(Thread.currentThread());
					waiterThreads.add(Thread.currentThread());
					waiting.countDown();
					LockAttempt attempt = locks.tryAcquire(key,
							LockOptions.ttl(Duration.ofSeconds(1)).withWaitTime(Duration.ofSeconds(TIMEOUT_SECONDS)));
					if (!attempt.isAcquired()) {
						return "not acquired";
					}
					try (Lease lease = attempt.lease()) {
						// Renewed a third of its time-to-live after it was taken
						Thread.sleep(700);
						return !virtual ? "not virtual" : lease.isHeld() ? OK : "lost";
					}
				}));
			}
			assertThat(waiting.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
			PausedWaiters.awaitPaused(waiterThreads, Duration.ofSeconds(TIMEOUT_SECONDS));
			executor.submit(() -> held.forEach(Lease::close)).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
			return succeeded(waiters);
		}
		finally {
			executor.shutdownNow();
		}
	}

	/** {@code count} virtual threads wait for one key, each holding it briefly. */
	private int queueForOneKey(LockTemplate locks, String key, int count) throws Exception {
		List<Future<String>> waiters = new ArrayList<>();
		ExecutorService executor = virtualThreads();
		try {
			for (int i = 0; i < count; i++) {
				waiters.add(executor.submit(() -> {
					LockAttempt attempt = locks.tryAcquire(key,
							LockOptions.ttl(Duration.ofSeconds(10)).withWaitTime(Duration.ofSeconds(TIMEOUT_SECONDS)));
					if (!attempt.isAcquired()) {
						return "not acquired";
					}
					try (Lease lease = attempt.lease()) {
						Thread.sleep(5);
						return OK;
					}
				}));
			}
			return succeeded(waiters);
		}
		finally {
			executor.shutdownNow();
		}
	}

	private static int succeeded(List<Future<String>> waiters) throws Exception {
		List<String> outcomes = new ArrayList<>();
		for (Future<String> waiter : waiters) {
			outcomes.add(waiter.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
		}
		assertThat(outcomes).as("outcomes of the waiters").containsOnly(OK);
		return outcomes.size();
	}

	private static List<RecordedEvent> recordPinning(Workload workload) throws Exception {
		Path file = Files.createTempFile("virtual-thread-pinning", ".jfr");
		try (Recording recording = new Recording()) {
			recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
			recording.start();
			workload.run();
			recording.stop();
			recording.dump(file);
			return RecordingFile.readAllEvents(file)
				.stream()
				.filter((event) -> event.getEventType().getName().equals("jdk.VirtualThreadPinned"))
				.toList();
		}
		finally {
			Files.deleteIfExists(file);
		}
	}

	/**
	 * Whether the event is a virtual thread waiting while another thread initializes a
	 * JDK class, such as {@code ReentrantReadWriteLock$Sync$HoldCounter}, which the JDK
	 * loads the first time two readers contend. That happens once per class and JVM,
	 * whichever code triggers it, so the warm-up cannot be sure to have covered every
	 * such class; it says nothing about how the lock's code waits.
	 */
	private static boolean isJdkClassInitialization(RecordedEvent event) {
		if (!event.hasField("pinnedReason")) {
			return false;
		}
		String reason = event.getString("pinnedReason");
		return reason != null && reason.startsWith("Waited for initialization of java.");
	}

	private static String describe(List<RecordedEvent> events) {
		return events.stream()
			.limit(5)
			.map((event) -> (event.getStackTrace() != null) ? event.getStackTrace()
				.getFrames()
				.stream()
				.limit(25)
				.map(RecordedFrame::getMethod)
				.map((method) -> "\t" + method.getType().getName() + "." + method.getName())
				.collect(Collectors.joining("\n")) : event.toString())
			.collect(Collectors.joining("\n--\n"));
	}

	/**
	 * Return an executor that starts a virtual thread per task; it implements
	 * {@code AutoCloseable} only from Java 19, so callers shut it down themselves.
	 */
	private static ExecutorService virtualThreads() {
		try {
			return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Virtual threads need Java 21", ex);
		}
	}

	private static boolean isVirtual(Thread thread) {
		try {
			return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@FunctionalInterface
	private interface Workload {

		void run() throws Exception;

	}

	private static final class PinsWhileInitializing {

		static final Object VALUE;

		static {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
			VALUE = new Object();
		}

	}

}
