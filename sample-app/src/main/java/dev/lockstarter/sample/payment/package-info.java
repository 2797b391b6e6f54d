/**
 * Payments taken with an {@code Idempotency-Key}, so that a retried payment is not
 * charged twice.
 */
@NullMarked
package dev.lockstarter.sample.payment;

import org.jspecify.annotations.NullMarked;
