package dev.lockstarter.docs.migration;

import java.time.Duration;

/**
 * The outcome of a coupon redemption.
 *
 * @param redeemed whether the coupon was redeemed
 * @param retryAfter when a busy caller may try again, zero when redeemed
 */
public record Redemption(boolean redeemed, Duration retryAfter) {

	static Redemption busy(Duration retryAfter) {
		return new Redemption(false, retryAfter);
	}

}
