package dev.lockstarter.sample.payment;

import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST /api/payments}.
 *
 * @param amount the amount to pay, in minor units; must be positive
 * @since 0.1.0
 */
public record PaymentRequest(@Nullable Long amount) {

}
