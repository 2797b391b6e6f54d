package dev.lockstarter.web;

import java.net.URI;

/**
 * The {@code type} URIs of the problem responses written by {@link LockExceptionHandler}.
 * They are stable identifiers, not links.
 *
 * @since 0.1.0
 */
public final class LockProblemTypes {

	/** Another request holds the lock on the same key (409 or 422). */
	public static final URI LOCK_CONFLICT = URI.create("urn:lockstarter:problem:lock-conflict");

	/** The request's lock key is null or blank, or its expression failed (400). */
	public static final URI INVALID_LOCK_KEY = URI.create("urn:lockstarter:problem:invalid-lock-key");

	/** The lock store could not be reached or did not answer in time (503). */
	public static final URI LOCK_STORE_UNAVAILABLE = URI.create("urn:lockstarter:problem:lock-store-unavailable");

	/**
	 * The lock store granted the request's lock only after the lock's time-to-live had
	 * run out (503): the time-to-live is shorter than the store took to answer.
	 */
	public static final URI LOCK_TTL_TOO_SHORT = URI.create("urn:lockstarter:problem:lock-ttl-too-short");

	/**
	 * A request to an idempotent handler has no {@code Idempotency-Key} header, or a
	 * malformed or over-long one (400).
	 */
	public static final URI INVALID_IDEMPOTENCY_KEY = URI.create("urn:lockstarter:problem:invalid-idempotency-key");

	/** A request with the same idempotency key is still in progress (409). */
	public static final URI IDEMPOTENT_REQUEST_IN_PROGRESS = URI
		.create("urn:lockstarter:problem:idempotent-request-in-progress");

	/**
	 * The idempotency key was already used for a request with a different payload (422).
	 */
	public static final URI IDEMPOTENCY_KEY_REUSED = URI.create("urn:lockstarter:problem:idempotency-key-reused");

	/**
	 * The body of a request to an idempotent handler is larger than the configured limit
	 * (413).
	 */
	public static final URI IDEMPOTENT_REQUEST_TOO_LARGE = URI
		.create("urn:lockstarter:problem:idempotent-request-too-large");

	/**
	 * The call whose result this request waited for (single-flight) failed with an
	 * exception that could not be created again here; the status is the failed call's,
	 * 500 if it had none.
	 */
	public static final URI SHARED_FAILURE = URI.create("urn:lockstarter:problem:shared-failure");

	/**
	 * The request's lease was lost while its method ran, and the method was cancelled
	 * ({@code onLeaseLost = CANCEL}); 503 by default, or 409.
	 */
	public static final URI LEASE_LOST = URI.create("urn:lockstarter:problem:lease-lost");

	private LockProblemTypes() {
	}

}
