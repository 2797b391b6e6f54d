package dev.lockstarter.test.contract;

/**
 * A part of the {@link LockStoreContractTests}: its tests reach the store through
 * {@link #storeUnderTest()}, which the suite implements.
 */
interface StoreContract {

	/**
	 * Return the store under test, created before each test.
	 * @return the store under test
	 */
	StoreUnderTest storeUnderTest();

}
