package dev.lockstarter.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.FinishedAttempt.Outcome;
import dev.lockstarter.observation.LockAcquireContext;

/**
 * One acquisition as it is reported: one {@code lock.acquire} observation, stopped with
 * the outcome as its tag, then one {@link LockListener#acquisitionFinished}. Finishing is
 * idempotent, so a reactive acquisition may finish from its value, error or cancel
 * signal, whichever comes first.
 */
final class ObservedAcquisition {

	private final LockEvents events;

	private final Observation observation;

	private final boolean noop;

	private final String name;

	private final String description;

	private final long startedAt = System.nanoTime();

	private final AtomicBoolean finished = new AtomicBoolean();

	ObservedAcquisition(LockEvents events, Observation observation, boolean noop, String name, String description) {
		this.events = events;
		this.observation = observation;
		this.noop = noop;
		this.name = name;
		this.description = description;
	}

	/** When the acquisition started, from {@link System#nanoTime()}. */
	long startedAt() {
		return this.startedAt;
	}

	/**
	 * Open the observation's scope for a blocking acquisition; the scope of a no-op
	 * registry changes nothing and is not opened.
	 * @return the scope, or {@code null}
	 */
	Observation.@Nullable Scope openScope() {
		return this.noop ? null : this.observation.openScope();
	}

	/**
	 * Report the acquisition with its outcome, unless it was reported already.
	 * @param outcome how it ended
	 * @param waited whether it waited
	 */
	void finish(Outcome outcome, boolean waited) {
		if (!this.finished.compareAndSet(false, true)) {
			return;
		}
		if (this.observation.getContext() instanceof LockAcquireContext context) {
			context.setOutcome(outcome.tagValue());
		}
		this.observation.stop();
		if (this.events.hasListeners()) {
			this.events.acquisitionFinished(new FinishedAttempt(this.name, this.description, outcome,
					Duration.ofNanos(System.nanoTime() - this.startedAt), waited));
		}
	}

	/**
	 * Report the acquisition as failed, unless it was reported already, with the outcome
	 * that its failure counts as ({@link Outcome#ofFailure}).
	 * @param failure what failed
	 * @param waited whether it waited
	 */
	void fail(Throwable failure, boolean waited) {
		if (!this.finished.get()) {
			this.observation.error(failure);
		}
		finish(Outcome.ofFailure(failure), waited);
	}

}
