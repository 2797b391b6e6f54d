package dev.lockstarter.test.contract;

import java.time.Duration;

import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.core.ReactiveLockTemplate;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.AwaitTimeoutsAsFailures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A part of the {@link ReactiveLockOperationsContractTests}: its tests reach the store
 * and the templates through these accessors, which the suite implements.
 */
@ExtendWith(AwaitTimeoutsAsFailures.class)
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

	/**
	 * Block for the value of a {@code Mono} that the test goes on to use: completing
	 * empty fails the test.
	 * @param <T> the type of the value
	 * @param mono the {@code Mono}
	 * @return its value
	 */
	static <T> T value(Mono<T> mono) {
		T value = mono.block(BLOCK);
		if (value == null) {
			throw new AssertionError("Completed without a value");
		}
		return value;
	}

	/**
	 * Check that another owner takes the lock of a key at once, and release it.
	 * @param key the key
	 */
	default void assertFree(String key) {
		LockAttempt attempt = locks().tryAcquire(key, LONG_TTL);
		assertThat(attempt.isAcquired()).as("lock '%s' is free", key).isTrue();
		attempt.lease().close();
	}

	/**
	 * Check that another owner takes the lock of a key within a time, and release it.
	 * @param key the key
	 * @param within the time
	 */
	default void assertFreeWithin(String key, Duration within) {
		LockAttempt attempt = await("lock '" + key + "' free").atMost(within)
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(10))
			.until(() -> locks().tryAcquire(key, LONG_TTL), LockAttempt::isAcquired);
		attempt.lease().close();
	}

}
