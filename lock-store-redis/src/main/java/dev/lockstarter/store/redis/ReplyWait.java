package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

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
 * spin is seldom in vain. In every case the wait ends at the caller's deadline.
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
	 * average in which each answer weighs a sixteenth. Read and written without a lock: a
	 * lost update only shifts the next decision by one answer.
	 */
	private volatile int withinSpin = ALL;

	/** The callers waiting for an answer, this one included while it waits. */
	private final AtomicInteger waiting;

	ReplyWait(Duration spin) {
		this(spin, Runtime.getRuntime().availableProcessors(), WAITING);
	}

	/**
	 * Create a wait.
	 * @param spin the spin time
	 * @param processors the processors of the machine
	 * @param waiting the count of the callers waiting, shared by the waits that compete
	 * for the same processors
	 */
	ReplyWait(Duration spin, int processors, AtomicInteger waiting) {
		// On one processor, spinning only delays the thread that answers
		this.spinNanos = (processors > 1) ? spin.toNanos() : 0;
		this.waiting = waiting;
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
	<T> T await(Future<T> future, long deadline) throws TimeoutException, InterruptedException, ExecutionException {
		if (this.spinNanos == 0) {
			return park(future, deadline);
		}
		long start = System.nanoTime();
		boolean answered = false;
		this.waiting.incrementAndGet();
		try {
			if (!future.isDone() && spins()) {
				spin(future, start, deadline);
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
			int share = this.withinSpin;
			int sample = (answered && System.nanoTime() - start <= this.spinNanos) ? ALL : 0;
			this.withinSpin = share + ((sample - share) >> 4);
		}
	}

	private boolean spins() {
		return this.waiting.get() == 1 && answersComeWithinSpin();
	}

	/** Whether at least half of the recent answers came within the spin time. */
	boolean answersComeWithinSpin() {
		return this.withinSpin >= ALL / 2;
	}

	private void spin(Future<?> future, long start, long deadline) {
		long end = (deadline - start < this.spinNanos) ? deadline : start + this.spinNanos;
		while (!future.isDone() && this.waiting.get() == 1 && System.nanoTime() - end < 0) {
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
