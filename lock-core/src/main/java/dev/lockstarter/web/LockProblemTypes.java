package dev.lockstarter.web;

import java.net.URI;

/**
 * The {@code type} URIs of the problem responses written by {@link LockExceptionHandler}. They
 * are stable identifiers, not links.
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
	 * The call whose result this request waited for (single-flight) failed with an exception
	 * that could not be created again here; the status is the failed call's, 500 if it had none.
	 */
	public static final URI SHARED_FAILURE = URI.create("urn:lockstarter:problem:shared-failure");

	private LockProblemTypes() {
	}

}
