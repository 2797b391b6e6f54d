package dev.lockstarter.docs.migration;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.stereotype.Service;

/**
 * lock4j's {@code @Lock4j} declarations rewritten with {@code @ExclusiveRequest}.
 */
@Service
public class CouponService {

	private final Coupons coupons;

	CouponService(Coupons coupons) {
		this.coupons = coupons;
	}

	// tag::keys[]
	@ExclusiveRequest(key = { "#user.id", "#code" }, ttl = "60s", waitTime = "1s")
	public Redemption redeem(Customer user, String code) {
		return this.coupons.redeem(user.getId(), code);
	}
	// end::keys[]

	// tag::name[]
	@ExclusiveRequest(name = "coupon", key = "#code")
	public void revoke(String code) {
		this.coupons.revoke(code);
	}
	// end::name[]

	// tag::hold-at-least[]
	@ExclusiveRequest(key = "#user.id", holdAtLeast = "5s")
	public void sendCode(Customer user) {
		this.coupons.sendCode(user.getId());
	}
	// end::hold-at-least[]

}
