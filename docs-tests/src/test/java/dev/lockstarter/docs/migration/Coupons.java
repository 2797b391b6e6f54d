package dev.lockstarter.docs.migration;

/**
 * The coupon operations of the migration examples.
 */
public interface Coupons {

	Redemption redeem(String userId, String code);

	void revoke(String code);

	void sendCode(String userId);

}
