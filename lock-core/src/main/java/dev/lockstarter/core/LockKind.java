package dev.lockstarter.core;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.SharedLockStore;

/**
 * What kind of lock a key is: a mutex (one holder), permits (at most a number of
 * holders), or the read or write side of a read/write lock (any number of readers, or one
 * writer; a waiting writer holds back new readers). Every kind but the mutex needs a
 * {@link SharedLockStore}, and takes one key.
 *
 * @since 0.1.0
 */
public final class LockKind {

	/** One holder at a time: the default. */
	public static final LockKind MUTEX = new LockKind(Type.MUTEX, 1);

	/** A reader of a read/write lock. */
	public static final LockKind READ = new LockKind(Type.READ, 0);

	/** The writer of a read/write lock. */
	public static final LockKind WRITE = new LockKind(Type.WRITE, 1);

	private final Type type;

	private final int permits;

	private LockKind(Type type, int permits) {
		this.type = type;
		this.permits = permits;
	}

	/**
	 * Return the kind with at most {@code permits} holders of a key at once; one permit
	 * is the {@link #MUTEX}.
	 * @param permits how many holders, positive
	 * @return the kind
	 */
	public static LockKind permits(int permits) {
		if (permits <= 0) {
			throw new IllegalArgumentException("'permits' must be positive, was " + permits);
		}
		return (permits == 1) ? MUTEX : new LockKind(Type.PERMITS, permits);
	}

	/**
	 * Return whether this is the mutex, which every store offers.
	 * @return {@code true} for {@link #MUTEX}
	 */
	public boolean isMutex() {
		return this.type == Type.MUTEX;
	}

	/**
	 * Return how many holders a key of this kind may have at once: 1 for a mutex and a
	 * writer, the permits for permits, 0 (no limit) for a reader.
	 * @return the number of holders, or 0 for no limit
	 */
	public int getPermits() {
		return this.permits;
	}

	Type type() {
		return this.type;
	}

	/**
	 * Return the name of this kind, as meters and the {@code locks} endpoint show it:
	 * {@code mutex}, {@code permits}, {@code read} or {@code write}.
	 * @return the name
	 */
	public String getName() {
		return this.type.name().toLowerCase(java.util.Locale.ROOT);
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other instanceof LockKind kind && kind.type == this.type && kind.permits == this.permits;
	}

	@Override
	public int hashCode() {
		return 31 * this.type.hashCode() + this.permits;
	}

	@Override
	public String toString() {
		return (this.type == Type.PERMITS) ? "permits(" + this.permits + ")" : getName();
	}

	enum Type {

		MUTEX, PERMITS, READ, WRITE

	}

}
