package dev.lockstarter.docs.idempotency;

/**
 * Makes payments.
 */
public interface Payments {

	Payment pay(long amount);

}
