package dev.lockstarter.autoconfigure;

import dev.lockstarter.interceptor.InvalidExclusiveRequestException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an invalid {@link dev.lockstarter.annotation.ExclusiveRequest} declaration
 * found at startup, naming the method to fix.
 */
class InvalidExclusiveRequestFailureAnalyzer extends AbstractFailureAnalyzer<InvalidExclusiveRequestException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidExclusiveRequestException cause) {
		String description = "The @ExclusiveRequest declaration on " + cause.getMethod() + " is invalid: "
				+ cause.getReason();
		String action = "Fix the @ExclusiveRequest annotation on " + cause.getMethod() + ".";
		return new FailureAnalysis(description, action, cause);
	}

}
