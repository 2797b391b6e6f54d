package dev.lockstarter.test.contract;

/**
 * A part of the {@link LockOperationsContractTests}: its tests reach the templates and
 * the store through {@link #templateUnderTest()}, which the suite implements.
 */
interface TemplateContract {

	/**
	 * Return the templates under test, created before each test.
	 * @return the templates under test
	 */
	TemplateUnderTest templateUnderTest();

}
