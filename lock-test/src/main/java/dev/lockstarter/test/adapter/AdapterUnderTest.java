package dev.lockstarter.test.adapter;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStore;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * The adapters an {@link AdapterContractTests} suite runs, created before each test on
 * the store under test. Every {@linkplain #newInstance() instance} is a
 * {@link LockTemplate} of its own on the one store, as the templates of two application
 * instances would be, with the same key prefix; an observer template, which no adapter
 * uses, checks whether a key is held.
 */
final class AdapterUnderTest {

	/** A time-to-live that does not pass during a test. */
	static final Duration LONG_TTL = Duration.ofSeconds(30);

	/** The longest a test waits for something that should happen. */
	static final Duration DEADLINE = Duration.ofSeconds(10);

	/**
	 * How much earlier than its time-to-live a lock may be seen expired (millisecond
	 * rounding).
	 */
	static final Duration EXPIRY_TOLERANCE = Duration.ofMillis(10);

	private final AdapterContractTests suite;

	private final LockStore store;

	private final String prefix;

	private final List<LockTemplate> instances = new CopyOnWriteArrayList<>();

	private final List<Thread> threads = new CopyOnWriteArrayList<>();

	private final LockTemplate observer;

	AdapterUnderTest(AdapterContractTests suite, LockStore store) {
		this.suite = suite;
		this.store = store;
		this.prefix = "adapter-" + UUID.randomUUID().toString().substring(0, 8) + ":";
		this.observer = newInstance();
	}

	LockStore store() {
		return this.store;
	}

	/**
	 * Take and release a lock once, so that a test's timed locks do not pay for opening
	 * connections or loading classes.
	 */
	void warmUp() {
		LockAttempt attempt = this.observer.tryAcquire(uniqueKey("warm-up"), LONG_TTL);
		assertThat(attempt.isAcquired()).as("warm-up acquisition").isTrue();
		attempt.lease().release();
	}

	/** A time-to-live that a test waits out, from the suite. */
	Duration shortTtl() {
		return this.suite.shortTtl();
	}

	/**
	 * A time-to-live within which a test acts on a lock before it expires, or that
	 * renewal keeps (every third of it): a second, or three short time-to-lives if
	 * longer, which leaves slack on a loaded machine.
	 */
	Duration slackTtl() {
		Duration threeShort = shortTtl().multipliedBy(3);
		return (threeShort.compareTo(Duration.ofSeconds(1)) > 0) ? threeShort : Duration.ofSeconds(1);
	}

	LostUpdateChecker lostUpdateChecker() {
		return this.suite.lostUpdateChecker();
	}

	String uniqueKey(String name) {
		return name + "-" + UUID.randomUUID();
	}

	/** A template of its own on the store, as another application instance has. */
	LockTemplate newInstance() {
		LockTemplate template = new LockTemplate(this.store, this.prefix);
		this.instances.add(template);
		return template;
	}

	/** A registry of the adapter under test, on an instance of its own. */
	RenewableLockRegistry<DistributedLock> newRegistry(LockOptions options) {
		return this.suite.createLockRegistry(newInstance(), options);
	}

	/** A provider of the adapter under test, on an instance of its own. */
	ExtensibleLockProvider newProvider() {
		return this.suite.createLockProvider(newInstance());
	}

	/** A lock of the adapter under test, on an instance of its own. */
	Lock newLock(String key, LockOptions options) {
		return lock(newInstance(), key, options);
	}

	/** A lock of the adapter under test, on the given instance. */
	Lock lock(LockOperations instance, String key, LockOptions options) {
		return this.suite.createLock(instance, key, options);
	}

	/** Another owner cannot take the key. */
	void assertHeld(String key) {
		LockAttempt attempt = this.observer.tryAcquire(key, LONG_TTL);
		if (attempt.isAcquired()) {
			attempt.lease().release();
			fail("Another owner acquired %s, which should be held", key);
		}
	}

	/** Another owner can take the key; it releases it at once. */
	void assertFree(String key) {
		LockAttempt attempt = this.observer.tryAcquire(key, LONG_TTL);
		assertThat(attempt.isAcquired()).as("another owner acquired %s, which should be free", key).isTrue();
		assertThat(attempt.lease().release()).isTrue();
	}

	/** Wait until the lock of a key has expired, without taking it. */
	void awaitExpired(String key) {
		await("the expiry of " + key).atMost(DEADLINE)
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(5))
			.until(() -> this.observer.timeToExpiry(key).isZero());
		// A store whose expiry includes its last millisecond (DynamoDB: held while
		// expiresAt >= now) still counts the lock held in the millisecond its time to
		// expiry first reads zero
		sleep(Duration.ofMillis(2));
	}

	/** Poll an attempt until it succeeds, within {@link #DEADLINE}. */
	void awaitTrue(String what, Callable<Boolean> attempt) throws Exception {
		await(what).atMost(DEADLINE).pollInSameThread().pollInterval(Duration.ofMillis(5)).until(attempt);
	}

	/** Run a task in a new thread. */
	<T> Waiter<T> inAnotherThread(Callable<T> task) {
		FutureTask<T> future = new FutureTask<>(task);
		Thread thread = new Thread(future, "adapter-contract-" + this.threads.size());
		thread.setDaemon(true);
		this.threads.add(thread);
		thread.start();
		return new Waiter<>(future, thread);
	}

	void destroy() {
		this.threads.forEach(Thread::interrupt);
		this.instances.forEach(LockTemplate::destroy);
	}

	static long elapsedSince(long start) {
		return System.nanoTime() - start;
	}

	static void sleepUntil(long nanoTime) {
		long remaining = nanoTime - System.nanoTime();
		if (remaining > 0) {
			sleep(Duration.ofNanos(remaining));
		}
	}

	static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis(), (int) (duration.toNanos() % 1_000_000));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	/**
	 * A task running in a thread of its own.
	 */
	static final class Waiter<T> {

		private final FutureTask<T> future;

		private final Thread thread;

		Waiter(FutureTask<T> future, Thread thread) {
			this.future = future;
			this.thread = thread;
		}

		/** Wait until the thread blocks (waits, parks or sleeps) or ends. */
		void awaitBlocked() {
			await("thread " + this.thread.getName() + " blocked").atMost(DEADLINE)
				.pollInSameThread()
				.pollInterval(Duration.ofMillis(1))
				.until(this::isBlocked);
		}

		private boolean isBlocked() {
			Thread.State state = this.thread.getState();
			return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING
					|| state == Thread.State.TERMINATED;
		}

		/** Whether the task is still running after the given time. */
		boolean isStillRunningAfter(Duration time) throws Exception {
			try {
				this.future.get(time.toNanos(), TimeUnit.NANOSECONDS);
				return false;
			}
			catch (TimeoutException ex) {
				return true;
			}
			catch (ExecutionException ex) {
				return false;
			}
		}

		void interrupt() {
			this.thread.interrupt();
		}

		/** The task's result, within {@link #DEADLINE}. */
		T get() throws Exception {
			try {
				return this.future.get(DEADLINE.toNanos(), TimeUnit.NANOSECONDS);
			}
			catch (ExecutionException ex) {
				Throwable cause = ex.getCause();
				if (cause instanceof Exception exception) {
					throw exception;
				}
				throw ex;
			}
		}

		/**
		 * What the task threw, within {@link #DEADLINE}, or {@code null} if it returned.
		 */
		@Nullable Throwable failure() throws Exception {
			try {
				this.future.get(DEADLINE.toNanos(), TimeUnit.NANOSECONDS);
				return null;
			}
			catch (ExecutionException ex) {
				return ex.getCause();
			}
		}

	}

}
