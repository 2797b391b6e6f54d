package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of {@link ReplyWait}'s policy: when a caller spins for an answer and when it
 * parks. A spin of a whole second makes the two tell apart by the caller's thread state:
 * a spinning thread is {@code RUNNABLE}, a parked one {@code TIMED_WAITING}. The answers
 * come from futures completed by the test; the round trips to a real Redis are covered by
 * the store's contract and timeout tests, which run through this wait.
 */
class ReplyWaitTests {

	private static final Duration LONG_SPIN = Duration.ofSeconds(1);

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
		assertWaitsIn(replyWait(LONG_SPIN), Thread.State.RUNNABLE, "spinning");
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
		assertWaitsIn(longSpin, Thread.State.TIMED_WAITING, "parked without spinning");
		int fast = 0;
		while (!wait.answersComeWithinSpin()) {
			assertThat(fast).as("answers at once before spinning resumes").isLessThan(12);
			assertThat(wait.await(CompletableFuture.completedFuture("OK"), deadlineIn(Duration.ofSeconds(5))))
				.isEqualTo("OK");
			fast++;
		}
	}

	@Test
	void aSpinningCallerParksWhenAnotherCallerStartsToWait() throws Exception {
		ReplyWait wait = replyWait(LONG_SPIN);
		CompletableFuture<String> first = new CompletableFuture<>();
		Caller spinning = Caller.start(wait, first);
		assertThat(spinning.stateAfter(Duration.ofMillis(100))).isEqualTo(Thread.State.RUNNABLE);
		CompletableFuture<String> second = new CompletableFuture<>();
		Caller other = Caller.start(wait, second);
		assertThat(spinning.stateAfter(Duration.ofMillis(200))).isEqualTo(Thread.State.TIMED_WAITING);
		assertThat(other.stateAfter(Duration.ZERO)).isEqualTo(Thread.State.TIMED_WAITING);
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
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500));
		assertThat(never).isCancelled();
	}

	@Test
	void aSingleProcessorNeverSpins() throws Exception {
		ReplyWait wait = new ReplyWait(LONG_SPIN, 1, this.waiting);
		assertThat(wait.getSpin()).isZero();
		assertWaitsIn(wait, Thread.State.TIMED_WAITING, "parked without spinning");
	}

	/**
	 * Start a caller on the wait, check its thread's state 200 ms later, then answer it
	 * and check that it returns the answer.
	 */
	private static void assertWaitsIn(ReplyWait wait, Thread.State state, String description) throws Exception {
		CompletableFuture<String> answer = new CompletableFuture<>();
		Caller caller = Caller.start(wait, answer);
		assertThat(caller.stateAfter(Duration.ofMillis(200))).as(description).isEqualTo(state);
		answer.complete("OK");
		assertThat(caller.result()).isEqualTo("OK");
	}

	private ReplyWait replyWait(Duration spin) {
		return new ReplyWait(spin, 2, this.waiting);
	}

	private static long deadlineIn(Duration duration) {
		return System.nanoTime() + duration.toNanos();
	}

	/** A thread waiting for one answer, with a deadline of 10 seconds. */
	private static final class Caller {

		private final Thread thread;

		private final CompletableFuture<String> result = new CompletableFuture<>();

		private Caller(ReplyWait wait, CompletableFuture<String> answer) {
			this.thread = new Thread(() -> {
				try {
					this.result.complete(wait.await(answer, deadlineIn(Duration.ofSeconds(10))));
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

		Thread.State stateAfter(Duration delay) throws InterruptedException {
			Thread.sleep(delay.toMillis());
			return this.thread.getState();
		}

		String result() throws Exception {
			return this.result.get(5, TimeUnit.SECONDS);
		}

	}

}
