package dev.lockstarter.test.adapter;

import org.junit.jupiter.api.extension.ExtendWith;

import dev.lockstarter.test.AwaitTimeoutsAsFailures;

/**
 * A part of the {@link AdapterContractTests}: its tests reach the adapters and the store
 * through {@link #adapterUnderTest()}, which the suite implements.
 */
@ExtendWith(AwaitTimeoutsAsFailures.class)
interface AdapterContract {

	/**
	 * Return the adapters under test, created before each test.
	 * @return the adapters under test
	 */
	AdapterUnderTest adapterUnderTest();

}
