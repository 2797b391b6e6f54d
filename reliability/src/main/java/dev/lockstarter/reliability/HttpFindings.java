package dev.lockstarter.reliability;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one {@link HttpScenario} did and what the oracle found. Counters the clients
 * update while the scenario runs are atomic; the rest is filled in at the end.
 */
final class HttpFindings {

	long durationMillis;

	/** Instances started; by one starter at a time. */
	volatile long instancesStarted;

	/**
	 * Instances killed by the nemesis ({@code kill -9} at a random moment); by the
	 * nemesis only, read while the scenario runs.
	 */
	volatile long kills;

	/** Instances that halted at a crash point, by point. */
	final Map<String, Long> crashes = new TreeMap<>();

	/** Store pauses; by the store nemesis only. */
	volatile long storePauses;

	final Registrations registrations = new Registrations();

	final Registrations unlocked = new Registrations();

	final Payments payments = new Payments();

	final Payments lateResponse = new Payments();

	long crashes() {
		return this.crashes.values().stream().mapToLong(Long::longValue).sum();
	}

	@Override
	public String toString() {
		return "HttpFindings[" + this.durationMillis + " ms, " + this.instancesStarted + " instances started, "
				+ this.kills + " kills, crashes " + this.crashes + ", store pauses " + this.storePauses
				+ ", registrations " + this.registrations + ", unlocked " + this.unlocked + ", payments "
				+ this.payments + ", late response " + this.lateResponse + "]";
	}

	/**
	 * What clients sent: requests, and the answers that made them retry.
	 */
	abstract static class Requests {

		final AtomicLong requests = new AtomicLong();

		/** {@code 409} answers. */
		final AtomicLong conflicts = new AtomicLong();

		/** Other answers that were not awaited, time-outs and refused connections. */
		final AtomicLong failures = new AtomicLong();

	}

	/**
	 * Registration storms on one endpoint.
	 */
	static final class Registrations extends Requests {

		final AtomicLong names = new AtomicLong();

		final AtomicLong created = new AtomicLong();

		final AtomicLong taken = new AtomicLong();

		/** Users stored, counted in the application's data at the end. */
		long stored;

		/** Names stored more than once. */
		long duplicates;

		/** Names that a client saw registered (201 or 422) with no user stored. */
		long lost;

		final List<String> examples = new ArrayList<>();

		@Override
		public String toString() {
			return "[" + this.names + " names, " + this.requests + " requests, " + this.created + " created, "
					+ this.taken + " taken, " + this.conflicts + " conflicts, " + this.failures + " failures; stored "
					+ this.stored + ", duplicates " + this.duplicates + ", lost " + this.lost + "]";
		}

	}

	/**
	 * Idempotent payments, each key retried until it gets a response.
	 */
	static final class Payments extends Requests {

		final AtomicLong keys = new AtomicLong();

		final AtomicLong completed = new AtomicLong();

		final AtomicLong replayed = new AtomicLong();

		/** Keys whose client gave up before a response. */
		final AtomicLong abandoned = new AtomicLong();

		/** Payments stored, counted in the application's data at the end. */
		long executions;

		/** Double executions: payments beyond the first of each key. */
		long doubles;

		/**
		 * Double executions that follow a payment whose response was never kept because
		 * its instance died after the payment: the documented window.
		 */
		long doublesAfterDeath;

		/**
		 * Double executions that follow a payment whose response the store did not keep
		 * (it failed, or the request's lock had expired), as the application logged.
		 */
		long doublesAfterStoreFailure;

		/** Payments whose response was never kept. */
		long notKept;

		/** Microseconds from a payment being durable to its response being kept. */
		final List<Long> windowMicros = new ArrayList<>();

		final List<String> examples = new ArrayList<>();

		long unexplainedDoubles() {
			return this.doubles - this.doublesAfterDeath - this.doublesAfterStoreFailure;
		}

		@Override
		public String toString() {
			return "[" + this.keys + " keys, " + this.requests + " requests, " + this.completed + " completed ("
					+ this.replayed + " replayed), " + this.conflicts + " conflicts, " + this.failures + " failures, "
					+ this.abandoned + " abandoned; executions " + this.executions + ", doubles " + this.doubles
					+ " (after a death " + this.doublesAfterDeath + ", after a store failure "
					+ this.doublesAfterStoreFailure + "), not kept " + this.notKept + ", windows "
					+ this.windowMicros.size() + (this.examples.isEmpty() ? "" : ", e.g. " + this.examples) + "]";
		}

	}

}
