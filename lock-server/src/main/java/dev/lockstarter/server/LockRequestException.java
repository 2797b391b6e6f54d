package dev.lockstarter.server;

import java.net.URI;
import java.util.Map;

import org.springframework.http.HttpStatus;

/**
 * A request the lock server refuses, with the problem response to send: never with an
 * owner token or an API key in its text.
 *
 * @since 0.1.0
 */
class LockRequestException extends RuntimeException {

	private final HttpStatus status;

	private final String type;

	private final String title;

	private final Map<String, Object> properties;

	private final long retryAfterSeconds;

	LockRequestException(HttpStatus status, String type, String title, String detail) {
		this(status, type, title, detail, Map.of(), 0);
	}

	LockRequestException(HttpStatus status, String type, String title, String detail, Map<String, Object> properties,
			long retryAfterSeconds) {
		super(detail, null, false, false);
		this.status = status;
		this.type = type;
		this.title = title;
		this.properties = properties;
		this.retryAfterSeconds = retryAfterSeconds;
	}

	static LockRequestException badRequest(String detail) {
		return new LockRequestException(HttpStatus.BAD_REQUEST, "invalid-lock-request", "Invalid lock request", detail);
	}

	static LockRequestException tooLarge(String detail) {
		return new LockRequestException(HttpStatus.CONTENT_TOO_LARGE, "lock-request-too-large",
				"Lock request too large", detail);
	}

	HttpStatus status() {
		return this.status;
	}

	URI type() {
		return URI.create("urn:lockstarter:problem:" + this.type);
	}

	String title() {
		return this.title;
	}

	Map<String, Object> properties() {
		return this.properties;
	}

	long retryAfterSeconds() {
		return this.retryAfterSeconds;
	}

}
