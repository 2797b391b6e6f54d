package dev.lockstarter.benchmarks;

/**
 * The keys one thread locks, in turn: {@value #KEYS_PER_THREAD} distinct keys per thread,
 * built once, so that building keys costs nothing during a measurement and every variant
 * locks the same sequence of keys. A key is released before the thread comes back to it,
 * and no two threads share a key, so no lock is ever contended.
 */
final class KeyRotation {

	/** Number of distinct keys per thread; a power of two. */
	static final int KEYS_PER_THREAD = 1024;

	private final String[] keys = new String[KEYS_PER_THREAD];

	private int next;

	/**
	 * Create the rotation of one thread.
	 * @param prefix the prefix of every key
	 * @param thread the thread's index, which makes its keys distinct from other threads'
	 */
	KeyRotation(String prefix, int thread) {
		for (int i = 0; i < KEYS_PER_THREAD; i++) {
			this.keys[i] = prefix + thread + ":" + i;
		}
	}

	/**
	 * Return the next key, starting over after the last.
	 * @return the key
	 */
	String next() {
		String key = this.keys[this.next];
		this.next = (this.next + 1) & (KEYS_PER_THREAD - 1);
		return key;
	}

}
