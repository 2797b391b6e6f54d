package dev.lockstarter.core;

import java.time.Duration;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import org.jetbrains.lincheck.Lincheck;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.ReleaseHandoffLockStore;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Model checking of {@link ReleaseHandoff}: Lincheck runs a holder's release, whose
 * announcement makes the waiter's listener acquire for it, beside the waiter, which tries
 * itself and takes the listener's answers as {@link BlockingWaiter} does (a few wakes,
 * then it stops waiting), explores their interleavings, and checks that a grant reaches
 * the waiter exactly once: the lock ends held by the waiter's token if and only if the
 * waiter acquired it, and free otherwise. The store answers the listener's attempt at
 * once, or later on the releasing thread. Each check is also run on a broken handoff, and
 * must fail there.
 */
class ReleaseHandoffModelCheckTests {

	/** Interleavings explored per check; the broken variants are caught within 30. */
	private static final int INVOCATIONS = 150;

	private static final String KEY = "k";

	private static final Duration TTL = Duration.ofSeconds(30);

	@Test
	void aGrantAnsweredAtOnceReachesTheWaiterExactlyOnce() {
		checkOneWaiter(false, Variant.REAL);
	}

	@Test
	void aGrantAnsweredLaterReachesTheWaiterExactlyOnce() {
		checkOneWaiter(true, Variant.REAL);
	}

	@Test
	void aReleaseHandedToTwoWaitersGoesToOneAtMost() {
		modelCheck(() -> {
			HandingOffStore store = new HandingOffStore(false);
			Waiter first = new Waiter(store, "first", new Gate(store, "first"));
			Waiter second = new Waiter(store, "second", new Gate(store, "second"));
			run(new Holder(store), first, second);
			first.checkOutcome();
			second.checkOutcome();
			check(!(first.acquired && second.acquired), "one waiter at most acquires");
			check(first.acquired || second.acquired || store.timeToExpiry(KEY).isZero(),
					"the lock is free if no waiter acquired it");
		});
	}

	@Test
	void aWaiterThatTriesBesideItsListenerIsCaught() {
		assertCaught(() -> checkOneWaiter(false, Variant.OPEN));
	}

	@Test
	void aHandoffThatClosesWithoutTakingTheAnswerIsCaught() {
		assertCaught(() -> checkOneWaiter(false, Variant.LEAKY));
	}

	private static void checkOneWaiter(boolean answerLater, Variant variant) {
		modelCheck(() -> {
			HandingOffStore store = new HandingOffStore(answerLater);
			Waiter waiter = new Waiter(store, "waiter", variant.gate(store, "waiter"));
			run(new Holder(store), waiter);
			waiter.checkOutcome();
			check(waiter.acquired || store.timeToExpiry(KEY).isZero(),
					"the lock is free if the waiter did not acquire it");
		});
	}

	/**
	 * Run the test once first, so that the classes it uses are initialized and its call
	 * sites linked before the model checker's first interleaving, which is then like the
	 * others (a broken variant may fail already); then model-check it.
	 */
	private static void modelCheck(Runnable test) {
		try {
			test.run();
		}
		catch (AssertionError ex) {
			// Checked below, under the model checker
		}
		Lincheck.runConcurrentTest(INVOCATIONS, test);
	}

	private static void run(Runnable... actions) {
		Thread[] threads = new Thread[actions.length];
		for (int i = 0; i < actions.length; i++) {
			threads[i] = new Thread(actions[i]);
			threads[i].start();
		}
		try {
			for (Thread thread : threads) {
				thread.join();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static void check(boolean condition, String expectation) {
		if (!condition) {
			throw new AssertionError("Expected that " + expectation);
		}
	}

	private static void assertCaught(Runnable check) {
		assertThatExceptionOfType(LincheckAssertionError.class).isThrownBy(check::run)
			.withMessageContaining("Expected that");
	}

	/**
	 * The holder of the lock: it releases it, and the store answers the attempts that the
	 * announcement made it send.
	 */
	private static final class Holder implements Runnable {

		private final HandingOffStore store;

		Holder(HandingOffStore store) {
			this.store = store;
			store.tryAcquire(KEY, "holder", TTL);
		}

		@Override
		public void run() {
			this.store.release(KEY, "holder");
			this.store.answerPending();
		}

	}

	/**
	 * A waiter on the key: subscribes its listener, tries once, then on each of a few
	 * wakes takes the listener's answer or tries itself, as {@link BlockingWaiter} does,
	 * and stops waiting.
	 */
	private static final class Waiter implements Runnable {

		private static final int WAKES = 2;

		private final HandingOffStore store;

		private final String token;

		final Gate gate;

		volatile boolean acquired;

		Waiter(HandingOffStore store, String token, Gate gate) {
			this.store = store;
			this.token = token;
			this.gate = gate;
		}

		@Override
		public void run() {
			ReleaseNotifyingLockStore.Subscription subscription = this.store.subscribe(KEY, this.gate);
			boolean acquired = tryItself();
			for (int wake = 0; wake < WAKES && !acquired; wake++) {
				ReleaseHandoff.Answer answer = this.gate.take();
				if (answer != null) {
					AcquireReply reply = answer.result();
					acquired = reply != null && reply.isAcquired();
				}
				else {
					acquired = tryItself();
				}
			}
			subscription.close();
			this.gate.close();
			this.acquired = acquired;
		}

		private boolean tryItself() {
			if (!this.gate.startWaiterTry()) {
				return false;
			}
			boolean acquired = this.store.tryAcquire(KEY, this.token, TTL).isAcquired();
			if (!acquired) {
				this.gate.endWaiterTry();
			}
			return acquired;
		}

		/** Once every thread is done and every answer came. */
		void checkOutcome() {
			this.store.answerPending();
			boolean held = this.store.extend(KEY, this.token, TTL);
			check(held == this.acquired, "the lock is held by " + this.token + " if and only if it acquired, but "
					+ (this.acquired ? "it acquired a lock it does not hold" : "it holds a lock it did not acquire"));
			check(this.gate.orphans.get() <= 1, "a grant is released once at most");
		}

	}

	/**
	 * The waiter's side of a {@link ReleaseHandoff}, and its listener: the real handoff,
	 * whose wakes the waiter does not need (it never parks), and whose orphaned grants
	 * are released by token at once and counted.
	 */
	private static class Gate implements Runnable, ReleaseHandoff.Orphans {

		final AtomicInteger orphans = new AtomicInteger();

		final ReleaseHandoff handoff;

		private final HandingOffStore store;

		private final String token;

		Gate(HandingOffStore store, String token) {
			this.store = store;
			this.token = token;
			this.handoff = new ReleaseHandoff(store, KEY, token, TTL, new Wakes(), this);
		}

		@Override
		public void run() {
			this.handoff.run();
		}

		@Override
		public void release(long sentAt) {
			this.orphans.incrementAndGet();
			this.store.release(KEY, this.token);
		}

		boolean startWaiterTry() {
			return this.handoff.startWaiterTry();
		}

		void endWaiterTry() {
			this.handoff.endWaiterTry();
		}

		ReleaseHandoff.@Nullable Answer take() {
			return this.handoff.take();
		}

		void close() {
			this.handoff.close();
		}

	}

	/** A handoff whose waiter tries even while the listener's attempt runs or waits. */
	private static final class OpenGate extends Gate {

		OpenGate(HandingOffStore store, String token) {
			super(store, token);
		}

		@Override
		boolean startWaiterTry() {
			super.startWaiterTry();
			return true;
		}

	}

	/** A handoff that stops without taking, or releasing, the listener's answer. */
	private static final class LeakyGate extends Gate {

		LeakyGate(HandingOffStore store, String token) {
			super(store, token);
		}

		@Override
		void close() {
		}

	}

	/** The handoff checked, or a broken one. */
	private enum Variant {

		REAL, OPEN, LEAKY;

		/**
		 * Make the gate in this class's code: an object that a lambda or a method
		 * reference creates is not followed by the model checker, nor what it holds.
		 */
		Gate gate(HandingOffStore store, String token) {
			switch (this) {
				case OPEN:
					return new OpenGate(store, token);
				case LEAKY:
					return new LeakyGate(store, token);
				default:
					return new Gate(store, token);
			}
		}

	}

	/** Wakes of a waiter that never parks. */
	private static final class Wakes implements Runnable {

		@Override
		public void run() {
		}

	}

	/**
	 * An in-memory store that can acquire from a release listener: at once, or when
	 * {@link #answerPending()} is called, as a reply from a remote store comes later.
	 */
	private static final class HandingOffStore extends InMemoryLockStore implements ReleaseHandoffLockStore {

		private final boolean answerLater;

		private final Queue<Attempt> pending = new ConcurrentLinkedQueue<>();

		HandingOffStore(boolean answerLater) {
			this.answerLater = answerLater;
		}

		@Override
		public Optional<CompletableFuture<AcquireReply>> tryAcquireOnRelease(String key, String token, Duration ttl) {
			if (!this.answerLater) {
				return Optional.of(CompletableFuture.completedFuture(tryAcquire(key, token, ttl)));
			}
			Attempt attempt = new Attempt(key, token, ttl);
			this.pending.add(attempt);
			return Optional.of(attempt.reply);
		}

		/** Acquire for, and answer, the attempts sent so far. */
		void answerPending() {
			Attempt attempt;
			while ((attempt = this.pending.poll()) != null) {
				attempt.reply.complete(tryAcquire(attempt.key, attempt.token, attempt.ttl));
			}
		}

		/**
		 * An attempt sent and not yet answered (a class, not a record, which the model
		 * checker cannot see into).
		 */
		private static final class Attempt {

			final String key;

			final String token;

			final Duration ttl;

			final CompletableFuture<AcquireReply> reply = new CompletableFuture<>();

			Attempt(String key, String token, Duration ttl) {
				this.key = key;
				this.token = token;
				this.ttl = ttl;
			}

		}

	}

}
