package dev.lockstarter.interceptor;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Internal;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;

/**
 * The parsed form of one method's lock annotation: its lock name, whether it returns a
 * {@link java.util.concurrent.CompletionStage}, and its lock options over the configured
 * defaults. Each annotation has its own subclass.
 *
 * @since 0.1.0
 */
@Internal
public abstract class LockAttribute {

	private final LockKind kind;

	private volatile @Nullable Resolved resolved;

	LockAttribute(LockKind kind) {
		this.kind = kind;
	}

	/**
	 * Return the lock name.
	 * @return the lock name
	 */
	public abstract String name();

	/**
	 * Return the kind of lock the method takes: a mutex, permits, or a side of a
	 * read/write lock.
	 * @return the kind
	 * @since 0.1.0
	 */
	public LockKind kind() {
		return this.kind;
	}

	/**
	 * Return whether the method returns a {@link java.util.concurrent.CompletionStage},
	 * whose completion releases the lock.
	 * @return {@code true} for an asynchronous method
	 */
	public abstract boolean completionStage();

	/**
	 * Return the lock options of this method: the annotation's values over the defaults.
	 * Computed on first use and kept, since the defaults are fixed once the application
	 * runs.
	 * @param defaults the configured defaults
	 * @return the options
	 */
	public LockOptions options(LockOptions defaults) {
		Resolved cached = this.resolved;
		if (cached == null || cached.defaults != defaults) {
			cached = new Resolved(defaults, resolve(defaults).withKind(this.kind));
			this.resolved = cached;
		}
		return cached.options;
	}

	/**
	 * Apply the annotation's values to the defaults.
	 */
	abstract LockOptions resolve(LockOptions defaults);

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[" + name() + "]";
	}

	private record Resolved(LockOptions defaults, LockOptions options) {
	}

}
