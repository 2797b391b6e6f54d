package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests of {@link ReplyWait}'s policy: when a caller spins for an answer and when it
 * parks. A spin of a whole minute makes the two tell apart by the caller's thread state,
 * with time to spare: a spinning thread stays {@code RUNNABLE}, a parked one is
 * {@code TIMED_WAITING} within seconds, long before a spin would end. The answers come
 * from futures completed by the test; the round trips to a real Redis are covered by the
 * store's contract and timeout tests, which run through this wait.
 */
class ReplyWaitTests {

	private static final Duration LONG_SPIN = Duration.ofMinutes(1);

	/** How long a spinning caller is watched, and stays {@code RUNNABLE} throughout. */
	private static final Duration WATCHED_SPIN = Duration.ofMillis(300);

	/** How long a caller may take to park; far shorter than {@link #LONG_SPIN}. */
	private static final Duration PARKS_WITHIN = Duration.ofSeconds(10);

	/**
	 * The count of waiting callers of this test's waits only: the store's waits of other
	 * tests in this JVM do not stop these from spinning.
	 */
	private final AtomicInteger waiting = new AtomicInteger();

	private final ScheduledExecutorService answers = Executors.newSingleThreadScheduledExecutor();

	@AfterEach
	void stopAnswering() {
		this.answers.shutdownNow();
	}

	@Test
	void aLoneCallerSpinsUntilTheAnswer() throws Exception {
		CompletableFuture<String> answer = new CompletableFuture<>();
		Caller caller = Caller.start(replyWait(LONG_SPIN), answer);
		awaitWaiting(1);
		caller.assertSpins();
		answer.complete("OK");
		assertThat(caller.result()).isEqualTo("OK");
	}

	@Test
	void slowAnswersStopTheSpinningAndFastOnesResumeIt() throws Exception {
		Duration spin = Duration.ofMillis(20);
		ReplyWait wait = replyWait(spin);
		assertThat(wait.answersComeWithinSpin()).isTrue();
		int slow = 0;
		while (wait.answersComeWithinSpin()) {
			assertThat(slow).as("answers later than the spin time before spinning stops").isLessThan(12);
			CompletableFuture<String> late = new CompletableFuture<>();
			this.answers.schedule(() -> late.complete("OK"), 40, TimeUnit.MILLISECONDS);
			assertThat(wait.await(late, deadlineIn(Duration.ofSeconds(5)))).isEqualTo("OK");
			slow++;
		}
		assertThat(slow).as("a few late answers do not stop it").isGreaterThan(5);
		ReplyWait longSpin = replyWait(LONG_SPIN);
		for (int timeouts = 0; longSpin.answersComeWithinSpin(); timeouts++) {
			assertThat(timeouts).as("timeouts before spinning stops").isLessThan(12);
			CompletableFuture<String> never = new CompletableFuture<>();
			assertThatExceptionOfType(TimeoutException.class)
				.isThrownBy(() -> longSpin.await(never, deadlineIn(Duration.ofMillis(1))));
			assertThat(never).isCancelled();
		}
		assertParks(longSpin);
		int fast = 0;
		while (!wait.answersComeWithinSpin()) {
			assertThat(fast).as("answers at once before spinning resumes").isLessThan(12);
			assertThat(wait.await(CompletableFuture.completedFuture("OK"), deadlineIn(Duration.ofSeconds(5))))
				.isEqualTo("OK");
			fast++;
		}
	}

	@Test
	void aParkedCallersAnswerCountsWhenItArrivesNotWhenTheCallerWakes() throws Exception {
		AtomicReference<@Nullable Thread> waking = new AtomicReference<>();
		// An hour passes on the clock of a caller whose answer was sent: a wake-up far
		// slower than the minute's spin, while the answer arrives well within it
		ReplyWait wait = new ReplyWait(LONG_SPIN, 2, this.waiting, () -> System.nanoTime()
				+ ((Thread.currentThread() == waking.get()) ? Duration.ofHours(1).toNanos() : 0));
		for (int timeouts = 0; wait.answersComeWithinSpin(); timeouts++) {
			assertThat(timeouts).as("timeouts before spinning stops").isLessThan(12);
			assertThatExceptionOfType(TimeoutException.class)
				.isThrownBy(() -> wait.await(new CompletableFuture<>(), deadlineIn(Duration.ofMillis(1))));
		}
		int answers = 0;
		while (!wait.answersComeWithinSpin()) {
			assertThat(answers).as("answers arriving within the spin before spinning resumes").isLessThan(12);
			CompletableFuture<String> answer = new CompletableFuture<>();
			Caller caller = Caller.start(wait, answer);
			caller.awaitParked("parked while answers came late");
			waking.set(caller.thread);
			answer.complete("OK");
			assertThat(caller.result()).isEqualTo("OK");
			answers++;
		}
	}

	@Test
	void aSpinningCallerParksWhenAnotherCallerStartsToWait() throws Exception {
		ReplyWait wait = replyWait(LONG_SPIN);
		CompletableFuture<String> first = new CompletableFuture<>();
		Caller spinning = Caller.start(wait, first);
		awaitWaiting(1);
		spinning.assertSpins();
		CompletableFuture<String> second = new CompletableFuture<>();
		Caller other = Caller.start(wait, second);
		awaitWaiting(2);
		spinning.awaitParked("the spinning caller, once another waits");
		other.awaitParked("the other caller");
		first.complete("first");
		second.complete("second");
		assertThat(spinning.result()).isEqualTo("first");
		assertThat(other.result()).isEqualTo("second");
	}

	@Test
	void theDeadlineEndsTheSpinAndCancelsTheCommand() {
		ReplyWait wait = replyWait(LONG_SPIN);
		CompletableFuture<String> never = new CompletableFuture<>();
		long start = System.nanoTime();
		assertThatExceptionOfType(TimeoutException.class)
			.isThrownBy(() -> wait.await(never, deadlineIn(Duration.ofMillis(50))));
		assertThat(Duration.ofNanos(System.nanoTime() - start))
			.as("liveness bound, not a speed claim: ended by the deadline, not by the minute's spin")
			.isLessThan(Duration.ofSeconds(10));
		assertThat(never).isCancelled();
	}

	@Test
	void aSingleProcessorNeverSpins() throws Exception {
		ReplyWait wait = new ReplyWait(LONG_SPIN, 1, this.waiting, System::nanoTime);
		assertThat(wait.getSpin()).isZero();
		assertParks(wait);
	}

	/**
	 * Start a caller on the wait, check that it parks well within the spin time, then
	 * answer it and check that it returns the answer.
	 */
	private static void assertParks(ReplyWait wait) throws Exception {
		CompletableFuture<String> answer = new CompletableFuture<>();
		Caller caller = Caller.start(wait, answer);
		caller.awaitParked("parked without spinning");
		answer.complete("OK");
		assertThat(caller.result()).isEqualTo("OK");
	}

	/** Wait until this test's waits count {@code count} waiting callers. */
	private void awaitWaiting(int count) {
		await(count + " callers waiting").atMost(PARKS_WITHIN)
			.pollInterval(Duration.ofMillis(1))
			.until(() -> this.waiting.get() == count);
	}

	private ReplyWait replyWait(Duration spin) {
		return new ReplyWait(spin, 2, this.waiting, System::nanoTime);
	}

	private static long deadlineIn(Duration duration) {
		return System.nanoTime() + duration.toNanos();
	}

	/** A thread waiting for one answer, with a deadline of two minutes. */
	private static final class Caller {

		private final Thread thread;

		private final CompletableFuture<String> result = new CompletableFuture<>();

		private Caller(ReplyWait wait, CompletableFuture<String> answer) {
			this.thread = new Thread(() -> {
				try {
					this.result.complete(wait.await(answer, deadlineIn(Duration.ofMinutes(2))));
				}
				catch (Exception ex) {
					this.result.completeExceptionally(ex);
				}
			}, "reply-wait-caller");
		}

		static Caller start(ReplyWait wait, CompletableFuture<String> answer) {
			Caller caller = new Caller(wait, answer);
			caller.thread.start();
			return caller;
		}

		/**
		 * Check that the thread, already counted as waiting, stays {@code RUNNABLE} for
		 * {@link #WATCHED_SPIN}: a parked thread would be seen {@code TIMED_WAITING}.
		 */
		void assertSpins() {
			await("spinning").during(WATCHED_SPIN)
				.atMost(WATCHED_SPIN.multipliedBy(2))
				.pollInterval(Duration.ofMillis(2))
				.failFast(() -> assertThat(this.thread.getState()).as("spinning").isEqualTo(Thread.State.RUNNABLE))
				.until(() -> this.thread.getState() == Thread.State.RUNNABLE);
		}

		/**
		 * Wait until the thread is {@code TIMED_WAITING}, for {@link #PARKS_WITHIN} at
		 * most: a spinning thread would stay {@code RUNNABLE} for the minute's spin.
		 */
		void awaitParked(String description) {
			await().atMost(PARKS_WITHIN)
				.pollInterval(Duration.ofMillis(2))
				.untilAsserted(
						() -> assertThat(this.thread.getState()).as(description).isEqualTo(Thread.State.TIMED_WAITING));
		}

		String result() throws Exception {
			return this.result.get(5, TimeUnit.SECONDS);
		}

	}

}
