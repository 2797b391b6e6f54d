package dev.lockstarter.test.adapter;

/**
 * A part of the {@link AdapterContractTests}: its tests reach the adapters and the store
 * through {@link #adapterUnderTest()}, which the suite implements.
 */
interface AdapterContract {

	/**
	 * Return the adapters under test, created before each test.
	 * @return the adapters under test
	 */
	AdapterUnderTest adapterUnderTest();

}
