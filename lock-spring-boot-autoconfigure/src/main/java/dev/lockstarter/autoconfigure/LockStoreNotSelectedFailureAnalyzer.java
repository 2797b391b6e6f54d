package dev.lockstarter.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains that {@code lock.store} must be set, naming the store modules found on the
 * classpath and the values to choose from.
 */
class LockStoreNotSelectedFailureAnalyzer extends AbstractFailureAnalyzer<LockStoreNotSelectedException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LockStoreNotSelectedException cause) {
		return new FailureAnalysis(cause.getDescription(), cause.getAction(), cause);
	}

}
