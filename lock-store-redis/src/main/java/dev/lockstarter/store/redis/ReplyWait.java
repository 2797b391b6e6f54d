package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * How a calling thread waits for Redis to answer a command it sent through Lettuce.
 * <p>
 * Parking the thread and having Lettuce's event loop unpark it costs a thread wake-up on
 * every round trip, which can take longer than Redis takes to answer on loopback. So a
 * caller that is the only one of the process waiting for Redis first spins, for at most
 * {@link #getSpin() the spin time}, and parks only if the answer has not come by then. It
 * stops spinning as soon as another caller starts to wait, so spinning never takes a core
 * from other callers' work; and it does not spin while fewer than half of the recent
 * answers of this store came within the spin time (Redis across a network), so that a
 * spin is seldom in vain. An answer counts by when it arrived, whether its caller spun or
 * parked: counted when a parked caller returns, the time its wake-up took would make a
 * near Redis look far, and spinning, once stopped, would not resume. In every case the
 * wait ends at the caller's deadline.
 */
final class ReplyWait {

	/** The spin time unless set: a few loopback round trips. */
	static final Duration DEFAULT_SPIN = Duration.ofNanos(100_000);

	/** Callers waiting for an answer from Redis, in every store of this process. */
	private static final AtomicInteger WAITING = new AtomicInteger();

	/**
	 * Parks at once: for commands that Redis answers late on purpose, such as
	 * {@code WAIT}.
	 */
	static final ReplyWait PARKING = new ReplyWait(Duration.ZERO);

	/** {@link #withinSpin}'s scale: all answers came within the spin time. */
	private static final int ALL = 1024;

	private final long spinNanos;

	/**
	 * The share of answers that came within the spin time, of {@link #ALL}, as a moving
	 * average in which each answer weighs a sixteenth: the answers to callers that were
	 * alone in waiting, and those found at once. Read and written without a lock: a lost
	 * update only shifts the next decision by one answer.
	 */
	private volatile int withinSpin = ALL;

	/** The callers waiting for an answer, this one included while it waits. */
	private final AtomicInteger waiting;

	/** The clock of the spin and of {@link #withinSpin}: {@link System#nanoTime()}. */
	private final LongSupplier clock;

	ReplyWait(Duration spin) {
		this(spin, Runtime.getRuntime().availableProcessors(), WAITING, System::nanoTime);
	}

	/**
	 * Create a wait.
	 * @param spin the spin time
	 * @param processors the processors of the machine
	 * @param waiting the count of the callers waiting, shared by the waits that compete
	 * for the same processors
	 * @param clock {@link System#nanoTime()}, or a test's view of it
	 */
	ReplyWait(Duration spin, int processors, AtomicInteger waiting, LongSupplier clock) {
		// On one processor, spinning only delays the thread that answers
		this.spinNanos = (processors > 1) ? spin.toNanos() : 0;
		this.waiting = waiting;
		this.clock = clock;
	}

	Duration getSpin() {
		return Duration.ofNanos(this.spinNanos);
	}

	/**
	 * Wait for an answer until a deadline, and cancel the command if it does not come.
	 * @param future the command's future, just sent
	 * @param deadline the {@link System#nanoTime()} by which to have the answer
	 * @return the answer
	 */
	<T, F extends Future<T> & CompletionStage<T>> T await(F future, long deadline)
			throws TimeoutException, InterruptedException, ExecutionException {
		if (this.spinNanos == 0) {
			return park(future, deadline);
		}
		long start = this.clock.getAsLong();
		if (future.isDone()) {
			record(true);
			return park(future, deadline);
		}
		boolean alone = this.waiting.incrementAndGet() == 1;
		boolean spun = alone && answersComeWithinSpin();
		boolean answered = false;
		try {
			if (spun) {
				spin(future, start, deadline);
			}
			else if (alone) {
				// Parked: the answer's arrival says whether a spin would have caught it;
				// the caller's return would add the time its wake-up took
				future.whenComplete((answer, failure) -> record(this.clock.getAsLong() - start <= this.spinNanos));
			}
			T answer = park(future, deadline);
			answered = true;
			return answer;
		}
		catch (ExecutionException ex) {
			// Redis answered with an error
			answered = true;
			throw ex;
		}
		finally {
			this.waiting.decrementAndGet();
			if (spun) {
				record(answered && this.clock.getAsLong() - start <= this.spinNanos);
			}
		}
	}

	/** Add one answer to {@link #withinSpin}. */
	private void record(boolean cameWithinSpin) {
		int share = this.withinSpin;
		int sample = cameWithinSpin ? ALL : 0;
		this.withinSpin = share + ((sample - share) >> 4);
	}

	/** Whether at least half of the recent answers came within the spin time. */
	boolean answersComeWithinSpin() {
		return this.withinSpin >= ALL / 2;
	}

	private void spin(Future<?> future, long start, long deadline) {
		long end = (deadline - start < this.spinNanos) ? deadline : start + this.spinNanos;
		while (!future.isDone() && this.waiting.get() == 1 && this.clock.getAsLong() - end < 0) {
			Thread.onSpinWait();
		}
	}

	private static <T> T park(Future<T> future, long deadline)
			throws TimeoutException, InterruptedException, ExecutionException {
		try {
			return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException | InterruptedException ex) {
			future.cancel(false);
			throw ex;
		}
	}

}
