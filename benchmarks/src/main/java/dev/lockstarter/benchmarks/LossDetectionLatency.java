package dev.lockstarter.benchmarks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnLeaseLost;
import dev.lockstarter.core.LeaseLostException;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.interceptor.ExclusiveRequestAdvisor;
import dev.lockstarter.interceptor.ExclusiveRequestAttributeSource;
import dev.lockstarter.interceptor.ExclusiveRequestInterceptor;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.test.redis.RedisServer;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Measures how late a holder learns that its lock is lost: the time from the lease's
 * local deadline, and from the store's expiry, to the cancellation of an
 * {@code @ExclusiveRequest(onLeaseLost = CANCEL)} method, which the interceptor
 * interrupts. The method sleeps well past its lock's time-to-live ({@link #TTL}, 1 s) and
 * notes when the interrupt reaches it.
 * <p>
 * Two cases per store, Redis ({@code RedisLockStore} on a {@code redis-server}) and
 * in-memory:
 * <ul>
 * <li>{@code RENEWAL_OFF}: the lease is not renewed ({@code lock.renew=false});</li>
 * <li>{@code RENEWALS_FAILING}: the lease is renewed until, between 0.45 and 0.6 of the
 * time-to-live into the method, the store stops answering: the {@code redis-server} is
 * stopped with {@code SIGSTOP} (and continued once the method was cancelled); the
 * in-memory store, which cannot be stopped, is wrapped so that its extensions hang
 * instead.</li>
 * </ul>
 * The store is wrapped to note when the last acquisition or extension that it confirmed
 * was sent: the store's expiry is that time plus the time-to-live (the earliest the store
 * may let the lock go; Redis counts from when the command arrived, a round trip of well
 * under a millisecond later), and the local deadline is that time plus the time-to-live
 * less the loss margin (a tenth by default). A negative figure from the store's expiry is
 * a cancellation before the store let the lock go. A method not cancelled within
 * {@link #LIMIT} is counted as such (on a revision without local deadlines, a lease that
 * is not renewed is never found lost).
 * <p>
 * The cases take turns, one trial each, for {@code -Dloss.trials=N} rounds (40), after 3
 * rounds of warm-up. Usage: {@code LossDetectionLatency <output.json> [CASE ...]}, cases
 * as {@code REDIS_RENEWAL_OFF}; writes the percentiles and every sample as JSON.
 */
public final class LossDetectionLatency {

	static final Duration TTL = Duration.ofMillis(Long.getLong("loss.ttlMillis", 1000));

	/** The longest a method waits to be cancelled. */
	static final Duration LIMIT = TTL.multipliedBy(3);

	/** The default loss margin: a tenth of the time-to-live. */
	static final double LOSS_MARGIN = 0.1;

	static final int TRIALS = Integer.getInteger("loss.trials", 40);

	static final int WARM_UP = 3;

	private LossDetectionLatency() {
	}

	/** A store and whether the lease is renewed. */
	enum Case {

		REDIS_RENEWAL_OFF(true, false), REDIS_RENEWALS_FAILING(true, true), MEMORY_RENEWAL_OFF(false, false),
		MEMORY_RENEWALS_FAILING(false, true);

		final boolean redis;

		final boolean renewalsFail;

		Case(boolean redis, boolean renewalsFail) {
			this.redis = redis;
			this.renewalsFail = renewalsFail;
		}

	}

	public static void main(String[] args) throws Exception {
		if (args.length < 1) {
			System.err.println("Usage: LossDetectionLatency <output.json> [" + List.of(Case.values()) + "]");
			System.exit(2);
		}
		List<Case> cases = new ArrayList<>();
		for (int i = 1; i < args.length; i++) {
			cases.add(Case.valueOf(args[i]));
		}
		if (cases.isEmpty()) {
			cases.addAll(List.of(Case.values()));
		}
		try (RedisServer redis = RedisServer.start()) {
			List<Setup> setups = new ArrayList<>();
			try {
				for (Case c : cases) {
					setups.add(new Setup(c, redis));
				}
				for (int round = 0; round < WARM_UP + TRIALS; round++) {
					for (int turn = 0; turn < setups.size(); turn++) {
						setups.get((round + turn) % setups.size()).trial(round >= WARM_UP);
					}
				}
			}
			finally {
				for (Setup setup : setups) {
					setup.close();
				}
			}
			StringBuilder json = new StringBuilder(String.format(Locale.ROOT,
					"{\n  \"ttl_ms\": %d,\n  \"loss_margin\": %.2f,\n  \"trials\": %d,\n  \"limit_ms\": %d,\n"
							+ "  \"cases\": {",
					TTL.toMillis(), LOSS_MARGIN, TRIALS, LIMIT.toMillis()));
			String separator = "\n";
			for (Setup setup : setups) {
				setup.summarize();
				json.append(separator).append(setup.json());
				separator = ",\n";
			}
			json.append("\n  }\n}\n");
			Files.writeString(Path.of(args[0]), json, StandardCharsets.UTF_8);
		}
		System.exit(0);
	}

	/**
	 * One case: its store, template and proxied method, and its samples.
	 */
	private static final class Setup {

		private final Case kind;

		private final RedisServer redis;

		private final WatchedStore store;

		private final LockTemplate locks;

		private final Worker worker;

		private final Runnable close;

		private final List<double[]> samples = new ArrayList<>();

		private int notCancelled;

		private int renewals;

		private int trials;

		Setup(Case kind, RedisServer redis) {
			this.kind = kind;
			this.redis = redis;
			if (kind.redis) {
				LettuceConnectionFactory connections = Variant.connectionFactory(redis.host(), redis.port());
				RedisLockStore redisStore = new RedisLockStore(connections);
				this.store = new WatchedStore(redisStore, false);
				this.close = () -> {
					redisStore.destroy();
					connections.destroy();
				};
			}
			else {
				this.store = new WatchedStore(new InMemoryLockStore(), kind.renewalsFail);
				this.close = () -> {
				};
			}
			this.locks = new LockTemplate(this.store);
			LockOptions defaults = LockOptions.ttl(TTL).withRenewal(kind.renewalsFail);
			ExclusiveRequestAttributeSource attributeSource = new ExclusiveRequestAttributeSource();
			ExclusiveRequestInterceptor interceptor = new ExclusiveRequestInterceptor(attributeSource, () -> this.locks,
					() -> defaults);
			ProxyFactory factory = new ProxyFactory(new Worker());
			factory.setProxyTargetClass(true);
			factory.addAdvisor(new ExclusiveRequestAdvisor(attributeSource, interceptor));
			this.worker = (Worker) factory.getProxy();
		}

		void trial(boolean measured) {
			Trial trial = new Trial(this.store);
			if (this.kind.renewalsFail) {
				trial.pauseAfter = (long) (TTL.toNanos() * (0.45 + 0.15 * ThreadLocalRandom.current().nextDouble()));
				trial.pause = this.kind.redis ? this.redis::pause : this.store::pause;
				trial.resume = this.kind.redis ? this.redis::resume : this.store::resume;
			}
			String key = this.kind.name().toLowerCase(Locale.ROOT) + "-" + this.trials++;
			this.store.reset();
			try {
				this.worker.work(key, trial);
			}
			catch (LeaseLostException ex) {
				// What CANCEL answers
			}
			finally {
				trial.resume.run();
			}
			if (!measured) {
				return;
			}
			if (trial.cancelledAt == 0) {
				this.notCancelled++;
				return;
			}
			this.renewals += trial.renewals;
			long lastWrite = trial.lastWrite;
			long localDeadline = lastWrite + (long) (TTL.toNanos() * (1 - LOSS_MARGIN));
			long storeExpiry = lastWrite + TTL.toNanos();
			this.samples.add(new double[] { (trial.cancelledAt - localDeadline) / 1e6,
					(trial.cancelledAt - storeExpiry) / 1e6 });
		}

		void summarize() {
			double[] fromDeadline = column(0);
			double[] fromExpiry = column(1);
			if (fromDeadline.length == 0) {
				System.out.printf(Locale.ROOT, "%-24s never cancelled within %d ms (%d trials)%n", this.kind,
						LIMIT.toMillis(), this.notCancelled);
				return;
			}
			System.out.printf(Locale.ROOT,
					"%-24s from local deadline p50 %7.2f ms p99 %7.2f ms | from store expiry p50 %8.2f ms p99 %8.2f ms"
							+ " | not cancelled %d%n",
					this.kind, TakeoverDelay.percentile(fromDeadline, 50), TakeoverDelay.percentile(fromDeadline, 99),
					TakeoverDelay.percentile(fromExpiry, 50), TakeoverDelay.percentile(fromExpiry, 99),
					this.notCancelled);
		}

		String json() {
			return String.format(Locale.ROOT,
					"    \"%s\": {\"samples\": %d, \"not_cancelled\": %d, \"renewals_confirmed\": %d,\n"
							+ "      \"from_local_deadline_ms\": %s,\n      \"from_store_expiry_ms\": %s,\n"
							+ "      \"samples_from_local_deadline_ms\": %s,\n      \"samples_from_store_expiry_ms\": %s}",
					this.kind, this.samples.size(), this.notCancelled, this.renewals, stats(column(0)),
					stats(column(1)), array(unsorted(0)), array(unsorted(1)));
		}

		private double[] unsorted(int index) {
			return this.samples.stream().mapToDouble((sample) -> sample[index]).toArray();
		}

		private double[] column(int index) {
			double[] values = unsorted(index);
			java.util.Arrays.sort(values);
			return values;
		}

		void close() {
			this.locks.destroy();
			this.close.run();
		}

	}

	private static String stats(double[] sorted) {
		if (sorted.length == 0) {
			return "null";
		}
		return String.format(Locale.ROOT, "{\"min\": %.3f, \"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f, \"max\": %.3f}",
				sorted[0], TakeoverDelay.percentile(sorted, 50), TakeoverDelay.percentile(sorted, 90),
				TakeoverDelay.percentile(sorted, 99), sorted[sorted.length - 1]);
	}

	private static String array(double[] values) {
		StringBuilder array = new StringBuilder("[");
		for (int i = 0; i < values.length; i++) {
			array.append((i > 0) ? ", " : "").append(String.format(Locale.ROOT, "%.3f", values[i]));
		}
		return array.append(']').toString();
	}

	/**
	 * One call of the method: when it should stop the store, and when it was cancelled.
	 */
	static final class Trial {

		final WatchedStore store;

		long pauseAfter;

		Runnable pause = () -> {
		};

		Runnable resume = () -> {
		};

		volatile long cancelledAt;

		volatile long lastWrite;

		volatile int renewals;

		Trial(WatchedStore store) {
			this.store = store;
		}

	}

	/**
	 * The guarded method: it sleeps past its lock's time-to-live, stopping the store on
	 * the way if the trial says so, and notes when it is interrupted.
	 */
	public static class Worker {

		@ExclusiveRequest(name = "loss-detection", key = "#key", onLeaseLost = OnLeaseLost.CANCEL)
		public void work(String key, Trial trial) {
			long entered = System.nanoTime();
			if (trial.pauseAfter > 0) {
				long pauseAt = entered + trial.pauseAfter;
				long left;
				while ((left = pauseAt - System.nanoTime()) > 0 && !Thread.currentThread().isInterrupted()) {
					LockSupport.parkNanos(left);
				}
				trial.pause.run();
			}
			try {
				Thread.sleep(LIMIT.toMillis());
			}
			catch (InterruptedException ex) {
				trial.cancelledAt = System.nanoTime();
				// Before the store answers again: a renewal it held may be confirmed then
				trial.lastWrite = trial.store.lastConfirmedSentAt;
				trial.renewals = trial.store.confirmedExtensions;
			}
			trial.resume.run();
		}

	}

	/**
	 * The measured store: notes when the last acquisition or extension that the store
	 * confirmed was sent, and, standing in for a store that stopped answering, can hold
	 * extensions until resumed.
	 */
	static final class WatchedStore implements LockStore {

		private final LockStore store;

		private final boolean pausable;

		private final Object monitor = new Object();

		private boolean paused;

		volatile long lastConfirmedSentAt;

		volatile int confirmedExtensions;

		WatchedStore(LockStore store, boolean pausable) {
			this.store = store;
			this.pausable = pausable;
		}

		void reset() {
			this.lastConfirmedSentAt = 0;
			this.confirmedExtensions = 0;
		}

		void pause() {
			synchronized (this.monitor) {
				this.paused = true;
			}
		}

		void resume() {
			synchronized (this.monitor) {
				this.paused = false;
				this.monitor.notifyAll();
			}
		}

		private void awaitResumed() {
			if (!this.pausable) {
				return;
			}
			synchronized (this.monitor) {
				boolean interrupted = false;
				while (this.paused) {
					try {
						this.monitor.wait();
					}
					catch (InterruptedException ex) {
						interrupted = true;
					}
				}
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
		}

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			long sentAt = System.nanoTime();
			AcquireReply reply = this.store.tryAcquire(key, token, ttl);
			if (reply.isAcquired()) {
				this.lastConfirmedSentAt = sentAt;
			}
			return reply;
		}

		@Override
		public boolean release(String key, String token) {
			return this.store.release(key, token);
		}

		@Override
		public boolean extend(String key, String token, Duration ttl) {
			awaitResumed();
			long sentAt = System.nanoTime();
			boolean extended = this.store.extend(key, token, ttl);
			if (extended) {
				confirmed(sentAt);
			}
			return extended;
		}

		@Override
		public boolean[] extendAll(List<String> keys, List<String> tokens, Duration ttl) {
			awaitResumed();
			long sentAt = System.nanoTime();
			boolean[] extended = this.store.extendAll(keys, tokens, ttl);
			for (boolean one : extended) {
				if (one) {
					confirmed(sentAt);
				}
			}
			return extended;
		}

		private void confirmed(long sentAt) {
			this.lastConfirmedSentAt = sentAt;
			this.confirmedExtensions++;
		}

		@Override
		public Duration timeToExpiry(String key) {
			return this.store.timeToExpiry(key);
		}

	}

}
