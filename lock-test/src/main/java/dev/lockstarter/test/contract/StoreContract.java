package dev.lockstarter.test.contract;

import org.junit.jupiter.api.extension.ExtendWith;

import dev.lockstarter.test.AwaitTimeoutsAsFailures;

/**
 * A part of the {@link LockStoreContractTests}: its tests reach the store through
 * {@link #storeUnderTest()}, which the suite implements.
 */
@ExtendWith(AwaitTimeoutsAsFailures.class)
interface StoreContract {

	/**
	 * Return the store under test, created before each test.
	 * @return the store under test
	 */
	StoreUnderTest storeUnderTest();

}
