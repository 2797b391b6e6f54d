package dev.lockstarter.docs.migration;

import dev.lockstarter.core.LockConflictException;
import org.springframework.stereotype.Component;

/**
 * Where a lock4j {@code LockFailureStrategy} turned a lost race into a result, the caller
 * catches {@link LockConflictException}.
 */
@Component
public class CouponEndpoint {

	private final CouponService coupons;

	CouponEndpoint(CouponService coupons) {
		this.coupons = coupons;
	}

	// tag::conflict[]
	public Redemption redeem(Customer user, String code) {
		try {
			return this.coupons.redeem(user, code);
		}
		catch (LockConflictException ex) {
			return Redemption.busy(ex.getRetryAfter());
		}
	}
	// end::conflict[]

}
