package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

/**
 * Idempotent request ({@code @IdempotentRequest}) properties: the
 * {@code lock.idempotency} group of {@link LockProperties}.
 *
 * @since 0.1.0
 */
public class IdempotencyProperties {

	/**
	 * Whether to enable @IdempotentRequest handling in servlet and reactive web
	 * applications.
	 */
	private boolean enabled = true;

	/**
	 * How long the response of an idempotent request is kept for replays, when its
	 * @IdempotentRequest sets none. A retry after it runs the request again.
	 */
	private Duration retention = Duration.ofHours(24);

	/**
	 * Response headers kept and replayed besides the status and body. Content-Type is
	 * always kept; Set-Cookie never is.
	 */
	private List<String> replayedHeaders = new ArrayList<>(
			List.of("Content-Type", "Location", "ETag", "Cache-Control"));

	/**
	 * Whether to keep and replay server error (5xx) responses. By default they are not
	 * kept, so a retry runs the request again.
	 */
	private boolean storeServerErrors;

	/**
	 * Longest accepted Idempotency-Key, in characters. Longer keys are rejected with 400.
	 */
	private int maxKeyLength = 255;

	/**
	 * Largest accepted body of an idempotent request, which is buffered in memory to
	 * compare it with a retry's. Larger bodies are rejected with 413.
	 */
	private DataSize maxBodySize = DataSize.ofMegabytes(1);

	/**
	 * Largest response body kept for replays. The body of an idempotent request is held
	 * in memory until the request completes, so this bounds the memory of each one; the
	 * default, 1MB, is Memcached's default item limit and ample for the JSON answers of
	 * operations worth retrying. A larger body is sent to the client in full, streamed
	 * past the bound, but not kept: a retry runs the request again, and a warning names
	 * the handler and the size. In transactional mode such a response is replaced by a
	 * 503 and the handler's writes are rolled back.
	 */
	private DataSize maxResponseSize = DataSize.ofMegabytes(1);

	/**
	 * Whether to keep the response of an idempotent request in the same database
	 * transaction as the handler's own writes, so that a crash leaves both or neither.
	 * Needs lock.store=jdbc and a transaction manager for its DataSource. A response that
	 * is not kept (5xx, 408, 409, 425, 429, an unhandled exception) then also rolls back
	 * the handler's writes. Servlet web applications only: a reactive application with it
	 * fails at startup.
	 */
	private boolean transactional;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getRetention() {
		return this.retention;
	}

	public void setRetention(Duration retention) {
		this.retention = retention;
	}

	public List<String> getReplayedHeaders() {
		return this.replayedHeaders;
	}

	public void setReplayedHeaders(List<String> replayedHeaders) {
		this.replayedHeaders = replayedHeaders;
	}

	public boolean isStoreServerErrors() {
		return this.storeServerErrors;
	}

	public void setStoreServerErrors(boolean storeServerErrors) {
		this.storeServerErrors = storeServerErrors;
	}

	public int getMaxKeyLength() {
		return this.maxKeyLength;
	}

	public void setMaxKeyLength(int maxKeyLength) {
		this.maxKeyLength = maxKeyLength;
	}

	public DataSize getMaxBodySize() {
		return this.maxBodySize;
	}

	public void setMaxBodySize(DataSize maxBodySize) {
		this.maxBodySize = maxBodySize;
	}

	public DataSize getMaxResponseSize() {
		return this.maxResponseSize;
	}

	public void setMaxResponseSize(DataSize maxResponseSize) {
		this.maxResponseSize = maxResponseSize;
	}

	public boolean isTransactional() {
		return this.transactional;
	}

	public void setTransactional(boolean transactional) {
		this.transactional = transactional;
	}

	/**
	 * Fail, naming the property to fix, if a value of this group is invalid.
	 */
	void validate() {
		PropertyChecks.positive("lock.idempotency.retention", this.retention, "The retention must be positive.");
		for (String header : this.replayedHeaders) {
			String name = (header != null) ? header.strip() : "";
			if (name.isEmpty() || name.equalsIgnoreCase("Set-Cookie") || name.equalsIgnoreCase("Set-Cookie2")) {
				throw new InvalidConfigurationPropertyValueException("lock.idempotency.replayed-headers", header,
						"Replayed headers must be non-blank header names other than Set-Cookie: cookies are never "
								+ "replayed.");
			}
		}
		if (this.maxKeyLength < 1) {
			throw new InvalidConfigurationPropertyValueException("lock.idempotency.max-key-length", this.maxKeyLength,
					"The longest key must be at least 1 character.");
		}
		if (this.maxBodySize.toBytes() < 1) {
			throw new InvalidConfigurationPropertyValueException("lock.idempotency.max-body-size", this.maxBodySize,
					"The largest body must be positive.");
		}
		if (this.maxResponseSize.toBytes() < 1) {
			throw new InvalidConfigurationPropertyValueException("lock.idempotency.max-response-size",
					this.maxResponseSize, "The largest kept response must be positive.");
		}
	}

}
