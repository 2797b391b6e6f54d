package dev.lockstarter.test.contract;

import org.junit.jupiter.api.extension.ExtendWith;

import dev.lockstarter.test.AwaitTimeoutsAsFailures;

/**
 * A part of the {@link LockOperationsContractTests}: its tests reach the templates and
 * the store through {@link #templateUnderTest()}, which the suite implements.
 */
@ExtendWith(AwaitTimeoutsAsFailures.class)
interface TemplateContract {

	/**
	 * Return the templates under test, created before each test.
	 * @return the templates under test
	 */
	TemplateUnderTest templateUnderTest();

}
