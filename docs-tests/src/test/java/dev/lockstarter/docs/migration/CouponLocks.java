package dev.lockstarter.docs.migration;

import java.time.Duration;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.key.LockKeys;
import org.springframework.stereotype.Service;

/**
 * lock4j's {@code LockTemplate} call site rewritten with {@link LockOperations}.
 */
@Service
public class CouponLocks {

	private final LockOperations locks;

	private final Coupons coupons;

	CouponLocks(LockOperations locks, Coupons coupons) {
		this.locks = locks;
		this.coupons = coupons;
	}

	// tag::programmatic[]
	public Redemption redeem(String userId, String code) {
		LockOptions options = LockOptions.ttl(Duration.ofSeconds(30)).withWaitTime(Duration.ofSeconds(5));
		LockAttempt attempt = this.locks.tryAcquire(LockKeys.of("coupon", code), options);
		if (!attempt.isAcquired()) {
			return Redemption.busy(attempt.retryAfter());
		}
		try (Lease lease = attempt.lease()) {
			return this.coupons.redeem(userId, code);
		}
	}
	// end::programmatic[]

}
