package dev.lockstarter.core;

import java.util.function.Supplier;

/**
 * What the acquisitions of one engine, and the leases they make, work with: the events,
 * the renewer, the deadlines, the cleaner of failed acquisitions, and the loss margin in
 * force when a lease is made.
 *
 * @param events the events
 * @param renewer the renewer
 * @param deadlines the deadlines
 * @param cleaner the cleaner of failed acquisitions
 * @param lossMargin the loss margin in force
 */
record LeaseServices(LockEvents events, LeaseRenewer renewer, LeaseDeadlines deadlines, OrphanCleaner cleaner,
		Supplier<LossMargin> lossMargin) {

}
