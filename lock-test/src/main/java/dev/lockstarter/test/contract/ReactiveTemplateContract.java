package dev.lockstarter.test.contract;

import java.time.Duration;

import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.core.ReactiveLockTemplate;
import dev.lockstarter.store.LockStore;

/**
 * A part of the {@link ReactiveLockOperationsContractTests}: its tests reach the store
 * and the templates through these accessors, which the suite implements.
 */
interface ReactiveTemplateContract {

	Duration LONG_TTL = Duration.ofSeconds(30);

	Duration BLOCK = Duration.ofSeconds(20);

	/**
	 * Return the store under test.
	 * @return the store
	 */
	LockStore store();

	/**
	 * Return the blocking template, on the store.
	 * @return the template
	 */
	LockTemplate locks();

	/**
	 * Return the reactive template under test, on the blocking template.
	 * @return the reactive template
	 */
	ReactiveLockTemplate reactiveLocks();

	/**
	 * Return whether the store issues fencing tokens, as the suite declares.
	 * @return the declared fencing
	 */
	DeclaredFencing declaredFencing();

	/**
	 * Return a new key, unique to the test run.
	 * @param name a readable part
	 * @return the key
	 */
	String uniqueKey(String name);

}
