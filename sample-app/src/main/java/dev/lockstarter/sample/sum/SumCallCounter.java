package dev.lockstarter.sample.sum;

/**
 * Counts the runs of the expensive computation: each run stands for a paid call to an
 * external API.
 *
 * @since 0.1.0
 */
public interface SumCallCounter {

	/**
	 * Count one run.
	 */
	void increment();

	/**
	 * Return the number of runs so far.
	 * @return the count
	 */
	long count();

}
