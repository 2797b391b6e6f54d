package dev.lockstarter.reliability;

import java.time.Duration;

/**
 * One run of the HTTP workload ({@link HttpScenarioRun}): instances of the sample app on
 * one store, its clients, and the nemeses.
 *
 * @param name short name, used in the report and the log file names
 * @param store where the locks, the users and the payments live
 * @param transactional whether {@code lock.idempotency.transactional} is on: the response
 * of an idempotent payment is kept in the payment's own transaction
 * @param registrations whether clients register users, through the locked endpoint and
 * through the unlocked one (the negative control)
 * @param lateResponseControl whether some payments run the late-response negative control
 * ({@link HttpInstance#LATE_RESPONSE})
 * @param duration how long clients start new requests
 */
record HttpScenario(String name, Store store, boolean transactional, boolean registrations, boolean lateResponseControl,
		Duration duration) {

	String description() {
		return switch (this.store) {
			case REDIS -> "sample app on Redis (locks, users, payments and kept responses)";
			case POSTGRES -> "sample app on PostgreSQL (`lock.store=jdbc`; users and payments in the same database), "
					+ (this.transactional ? "`lock.idempotency.transactional=true`"
							: "`lock.idempotency.transactional=false`");
		};
	}

	/**
	 * Where the instances keep their locks and data.
	 */
	enum Store {

		/** Profile {@code redis}. */
		REDIS,

		/** Profile {@code jdbc}, on a PostgreSQL cluster. */
		POSTGRES

	}

}
