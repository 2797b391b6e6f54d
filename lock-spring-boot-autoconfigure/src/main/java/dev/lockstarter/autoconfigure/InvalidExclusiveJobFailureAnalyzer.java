package dev.lockstarter.autoconfigure;

import dev.lockstarter.interceptor.InvalidExclusiveJobException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an invalid {@link dev.lockstarter.annotation.ExclusiveJob} declaration found
 * at startup, naming the method to fix.
 */
class InvalidExclusiveJobFailureAnalyzer extends AbstractFailureAnalyzer<InvalidExclusiveJobException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidExclusiveJobException cause) {
		String description = "The @ExclusiveJob declaration on " + cause.getMethod() + " is invalid: "
				+ cause.getReason();
		String action = "Fix the @ExclusiveJob annotation on " + cause.getMethod() + ".";
		return new FailureAnalysis(description, action, cause);
	}

}
