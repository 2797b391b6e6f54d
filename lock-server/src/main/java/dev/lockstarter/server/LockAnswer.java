package dev.lockstarter.server;

import org.jspecify.annotations.Nullable;

/**
 * An answer of the lock resource, which {@link LockServlet} writes: its status, the
 * {@code Location} of a lock it created, and its JSON body.
 *
 * @param status the status
 * @param location the created lock's path, or {@code null}
 * @param body the body, or {@code null} for none
 * @param <T> the body's type
 * @since 0.1.0
 */
record LockAnswer<T extends LockAnswer.Body>(int status, @Nullable String location, @Nullable T body) {

	static <T extends Body> LockAnswer<T> created(String location, T body) {
		return new LockAnswer<>(201, location, body);
	}

	static <T extends Body> LockAnswer<T> ok(T body) {
		return new LockAnswer<>(200, null, body);
	}

	static LockAnswer<Body> noContent() {
		return new LockAnswer<>(204, null, null);
	}

	/** A body of an answer: one JSON object. */
	interface Body {

		/**
		 * Return the body as JSON.
		 * @return its UTF-8 bytes
		 */
		byte[] json();

	}

}
