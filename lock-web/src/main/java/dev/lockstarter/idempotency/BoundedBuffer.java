package dev.lockstarter.idempotency;

import java.util.Arrays;

/**
 * Bytes held in memory up to a bound: the array grows as bytes arrive (doubling, never
 * past the bound), so a large declared size costs nothing until the bytes are there, and
 * a write that would pass the bound is refused, not held. Holds request bodies (up to the
 * largest accepted body) and responses to keep (up to the largest kept response), in
 * Spring MVC and WebFlux alike. Not thread-safe.
 */
final class BoundedBuffer {

	private static final int INITIAL_CAPACITY = 256;

	private static final byte[] EMPTY = new byte[0];

	private final int maxSize;

	private byte[] bytes = EMPTY;

	private int size;

	/**
	 * Create an empty buffer.
	 * @param maxSize the most bytes it holds, positive; a size past
	 * {@code Integer.MAX_VALUE - 8} is taken as that
	 */
	BoundedBuffer(long maxSize) {
		this.maxSize = (int) Math.min(maxSize, Integer.MAX_VALUE - 8);
	}

	/**
	 * Append bytes, if they fit within the bound.
	 * @param source the bytes
	 * @param offset where they start in {@code source}
	 * @param length how many
	 * @return {@code true} if they were appended; {@code false}, with nothing appended,
	 * if they would pass the bound
	 */
	boolean write(byte[] source, int offset, int length) {
		if (length > this.maxSize - this.size) {
			return false;
		}
		int needed = this.size + length;
		if (needed > this.bytes.length) {
			int grown = (int) Math.min(Math.max((long) this.bytes.length * 2, INITIAL_CAPACITY), this.maxSize);
			this.bytes = Arrays.copyOf(this.bytes, Math.max(grown, needed));
		}
		System.arraycopy(source, offset, this.bytes, this.size, length);
		this.size = needed;
		return true;
	}

	/**
	 * Return the bytes held.
	 * @return a copy of them
	 */
	byte[] toByteArray() {
		return Arrays.copyOf(this.bytes, this.size);
	}

	/**
	 * Return the most bytes held.
	 * @return the bound
	 */
	int capacityLimit() {
		return this.maxSize;
	}

	/**
	 * Return how many bytes are held.
	 * @return the size
	 */
	int size() {
		return this.size;
	}

	/**
	 * Return the length of the array that holds the bytes, for tests of what is
	 * allocated.
	 * @return the capacity
	 */
	int capacity() {
		return this.bytes.length;
	}

	/**
	 * Drop the bytes held, and the array that held them.
	 */
	void clear() {
		this.bytes = EMPTY;
		this.size = 0;
	}

}
