package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.redis.RedisLockStore.SubscriptionState;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The store's subscription to release notifications, opened and kept on a daemon thread
 * of its own, so that no caller ever waits for it: {@link #start()} returns at once, and
 * while the subscription is not open waiters simply poll.
 * <p>
 * The thread opens the subscription, holds it while its connection lives, and after a
 * failure or a loss tries again with a backoff of {@value #FIRST_RETRY_MILLIS} ms
 * doubling up to {@value #MAX_RETRY_MILLIS} ms. Each attempt is bounded by the client's
 * own connect and command timeouts; however long it takes, it delays nothing but the
 * notifications. Subclasses say how to open, hold and release a subscription.
 */
abstract class ReleaseSubscriber {

	static final long FIRST_RETRY_MILLIS = 100;

	static final long MAX_RETRY_MILLIS = 2000;

	private static final BackOff RETRIES = retries();

	/** How often a held subscription is checked for a connection closed for good. */
	private static final long HOLD_CHECK_MILLIS = 1000;

	private static final Duration STOP_WAIT = Duration.ofSeconds(1);

	private static final AtomicInteger threads = new AtomicInteger();

	protected final Log logger = LogFactory.getLog(getClass());

	private final String name;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	private volatile SubscriptionState state = SubscriptionState.IDLE;

	private volatile boolean closed;

	private final AtomicBoolean starting = new AtomicBoolean();

	private @Nullable Thread thread;

	/**
	 * Create a subscriber.
	 * @param name what it subscribes to, for thread names and log messages
	 */
	ReleaseSubscriber(String name) {
		this.name = name;
	}

	private static BackOff retries() {
		ExponentialBackOff retries = new ExponentialBackOff(FIRST_RETRY_MILLIS, 2);
		retries.setMaxInterval(MAX_RETRY_MILLIS);
		return retries;
	}

	/**
	 * Start opening the subscription in the background, unless it is already started or
	 * closed. Never blocks on Redis.
	 */
	final void start() {
		// One caller goes on; the others (reactive waiters too) never wait for the lock
		if (this.state != SubscriptionState.IDLE || this.closed || !this.starting.compareAndSet(false, true)) {
			return;
		}
		this.lock.lock();
		try {
			if (this.thread != null || this.closed) {
				return;
			}
			this.state = SubscriptionState.CONNECTING;
			Thread started = new Thread(this::run, "lock-redis-release-subscriber-" + threads.incrementAndGet());
			started.setDaemon(true);
			this.thread = started;
			started.start();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Return the state of the subscription.
	 * @return the state
	 */
	final SubscriptionState state() {
		SubscriptionState known = this.state;
		if (known == SubscriptionState.CONNECTED && !isConnected()) {
			// The client reconnects (and subscribes again) by itself
			return SubscriptionState.DISCONNECTED;
		}
		return known;
	}

	/**
	 * Stop the background work and release the subscription; waits for the thread a
	 * moment at most.
	 */
	final void close() {
		Thread running;
		this.lock.lock();
		try {
			this.closed = true;
			running = this.thread;
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
		if (running == null) {
			return;
		}
		stopOpening();
		if (interruptible()) {
			running.interrupt();
		}
		try {
			running.join(STOP_WAIT.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Return whether {@link #close()} was called.
	 * @return whether closed
	 */
	final boolean isClosed() {
		return this.closed;
	}

	/**
	 * Record that Redis confirmed the subscription.
	 */
	final void subscribed() {
		SubscriptionState previous = this.state;
		if (this.closed || previous == SubscriptionState.CONNECTED) {
			return;
		}
		this.state = SubscriptionState.CONNECTED;
		if (previous == SubscriptionState.DISCONNECTED) {
			this.logger.info("Redis lock release notifications are back (" + this.name + ")");
		}
	}

	/**
	 * Open the subscription. May block, and may hold the subscription until it ends
	 * (Jedis). Call {@link #subscribed()} once Redis confirms it.
	 */
	protected abstract void open();

	/**
	 * Return whether the subscription opened by {@link #open()} is still held: its
	 * connection is not closed for good. The client reconnects a connection that was
	 * merely lost.
	 * @return whether held
	 */
	protected abstract boolean isHeld();

	/**
	 * Return whether the subscription's connection is up right now.
	 * @return whether connected
	 */
	protected abstract boolean isConnected();

	/**
	 * Release what {@link #open()} opened, if anything. Must not throw.
	 */
	protected abstract void release();

	/**
	 * Make an {@link #open()} that blocks on another thread return, if it can; called by
	 * {@link #close()}, besides an interrupt.
	 */
	protected void stopOpening() {
	}

	/**
	 * Return whether {@link #close()} may interrupt the subscribing thread. A client
	 * whose blocking subscription loop stops at an interrupt (Jedis checks the flag after
	 * each message) must not be interrupted while it holds one: the loop would return its
	 * connection to the pool still subscribed, with the unsubscription's reply unread.
	 * @return {@code true} by default
	 */
	protected boolean interruptible() {
		return true;
	}

	private void run() {
		BackOffExecution backOff = RETRIES.start();
		boolean warned = false;
		while (!this.closed) {
			try {
				open();
				if (!this.closed && isHeld()) {
					backOff = RETRIES.start();
					warned = false;
					hold();
				}
			}
			catch (RuntimeException ex) {
				if (this.closed) {
					break;
				}
				if (!warned) {
					this.logger
						.warn("Redis lock release notifications are unavailable (" + this.name + "): " + ex.getMessage()
								+ "; waiters poll meanwhile, and the subscription is retried in the " + "background");
					warned = true;
				}
				else if (this.logger.isDebugEnabled()) {
					this.logger
						.debug("Subscription to Redis lock release notifications failed again (" + this.name + ")", ex);
				}
			}
			finally {
				release();
			}
			if (!this.closed) {
				this.state = SubscriptionState.DISCONNECTED;
				pause(backOff.nextBackOff());
			}
		}
	}

	private void hold() {
		this.lock.lock();
		try {
			while (!this.closed && isHeld()) {
				this.changed.await(HOLD_CHECK_MILLIS, TimeUnit.MILLISECONDS);
			}
		}
		catch (InterruptedException ex) {
			// Closed
		}
		finally {
			this.lock.unlock();
		}
	}

	private void pause(long millis) {
		this.lock.lock();
		try {
			if (!this.closed) {
				this.changed.await(millis, TimeUnit.MILLISECONDS);
			}
		}
		catch (InterruptedException ex) {
			// Closed
		}
		finally {
			this.lock.unlock();
		}
	}

}
