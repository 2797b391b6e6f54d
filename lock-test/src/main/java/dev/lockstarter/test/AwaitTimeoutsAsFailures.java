package dev.lockstarter.test;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

import dev.lockstarter.core.Internal;

/**
 * Reports a wait of the test kit's contracts that ran out of time as what it is, a failed
 * assertion: an {@link AssertionError} that wraps Awaitility's
 * {@link ConditionTimeoutException}, as the contracts' other failures are.
 *
 * @since 0.1.0
 */
@Internal
public final class AwaitTimeoutsAsFailures implements TestExecutionExceptionHandler {

	@Override
	public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
		if (throwable instanceof ConditionTimeoutException timeout) {
			throw new AssertionError(timeout.getMessage(), timeout);
		}
		throw throwable;
	}

}
