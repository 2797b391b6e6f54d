package dev.lockstarter.autoconfigure;

import dev.lockstarter.interceptor.InvalidLockDeclarationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an invalid lock annotation
 * ({@link dev.lockstarter.annotation.ExclusiveRequest},
 * {@link dev.lockstarter.annotation.ExclusiveJob}) found at startup, naming the method to
 * fix.
 */
class InvalidLockDeclarationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockDeclarationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidLockDeclarationException cause) {
		String description = "The " + cause.getAnnotation() + " declaration on " + cause.getMethod() + " is invalid: "
				+ cause.getReason();
		String action = "Fix the " + cause.getAnnotation() + " annotation on " + cause.getMethod() + ".";
		return new FailureAnalysis(description, action, cause);
	}

}
