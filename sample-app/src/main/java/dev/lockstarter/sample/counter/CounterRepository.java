package dev.lockstarter.sample.counter;

/**
 * Stores counter values with plain reads and writes, and no atomic increment: what makes
 * an unguarded read-modify-write lose updates.
 *
 * @since 0.1.0
 */
public interface CounterRepository {

	/**
	 * Read a counter.
	 * @param name the counter's name
	 * @return its value, 0 if never written
	 */
	long read(String name);

	/**
	 * Overwrite a counter.
	 * @param name the counter's name
	 * @param value the new value
	 */
	void write(String name, long value);

}
