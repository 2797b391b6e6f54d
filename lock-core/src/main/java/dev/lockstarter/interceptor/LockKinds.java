package dev.lockstarter.interceptor;

import dev.lockstarter.annotation.LockMode;
import dev.lockstarter.core.LockKind;

/**
 * The {@link LockKind} that a lock annotation's {@code permits} and {@code mode} declare.
 */
final class LockKinds {

	private LockKinds() {
	}

	/**
	 * Return the kind of a declaration, checked.
	 * @param declared the annotated method
	 * @param permits the annotation's permits
	 * @param mode the annotation's mode
	 * @return the kind
	 * @throws InvalidLockDeclarationException if the permits are not positive, or are
	 * combined with a read or write mode
	 */
	static LockKind of(DeclaredMethod declared, int permits, LockMode mode) {
		if (permits < 1) {
			throw declared.invalid("permits must be positive, was " + permits);
		}
		if (permits > 1 && mode != LockMode.EXCLUSIVE) {
			throw declared.invalid("permits = " + permits + " cannot be combined with mode = " + mode
					+ ": a read/write lock has any number of readers or one writer");
		}
		return switch (mode) {
			case READ -> LockKind.READ;
			case WRITE -> LockKind.WRITE;
			case EXCLUSIVE -> LockKind.permits(permits);
		};
	}

	/**
	 * Describe the attributes that declared a kind other than the mutex, for messages.
	 * @param permits the annotation's permits
	 * @param mode the annotation's mode
	 * @return for example {@code "permits = 3"} or {@code "mode = READ"}
	 */
	static String describe(int permits, LockMode mode) {
		return (mode != LockMode.EXCLUSIVE) ? "mode = " + mode : "permits = " + permits;
	}

}
