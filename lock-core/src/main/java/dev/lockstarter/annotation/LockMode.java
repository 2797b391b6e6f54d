package dev.lockstarter.annotation;

/**
 * Which side of a key's lock an {@link ExclusiveRequest} takes: the whole key, or the
 * read or write side of a read/write lock.
 *
 * @since 0.1.0
 */
public enum LockMode {

	/**
	 * One call at a time per key (or at most {@link ExclusiveRequest#permits()} calls):
	 * the default.
	 */
	EXCLUSIVE,

	/**
	 * Any number of readers of a key at once, while no writer holds it or waits for it.
	 */
	READ,

	/**
	 * One writer of a key, while no reader or other writer holds it. A writer that waits
	 * ({@link ExclusiveRequest#waitTime()}) holds new readers back meanwhile, so that a
	 * stream of readers cannot starve it.
	 */
	WRITE

}
