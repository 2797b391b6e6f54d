package dev.lockstarter.idempotency;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Collection;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Internal;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.idempotency.IdempotentRequestListener.Outcome;
import org.springframework.util.Assert;
import org.springframework.web.method.HandlerMethod;

/**
 * The configuration that the Spring MVC {@link IdempotentRequestInterceptor} and the
 * WebFlux {@link IdempotentRequestWebFilter} share: which response headers are kept and
 * replayed, whether server errors are kept, the longest key and the largest body, the
 * listener, the declarations of handler methods, and the options of the lock held while a
 * request runs. Both apply the same rules with it, so that instances of either stack on
 * one lock store replay each other's responses.
 *
 * @since 0.1.0
 */
@Internal
public abstract class IdempotentRequestSupport {

	private final Supplier<LockOptions> lockOptions;

	private final IdempotentRequestAttributeSource attributeSource;

	private final IdempotencyPolicy policy = new IdempotencyPolicy();

	private @Nullable IdempotentRequestListener listener;

	IdempotentRequestSupport(Supplier<LockOptions> lockOptions, Duration retention, boolean rejectAsynchronous) {
		Assert.notNull(lockOptions, "'lockOptions' must not be null");
		Assert.notNull(retention, "'retention' must not be null");
		Assert.isTrue(!retention.isNegative() && !retention.isZero(),
				() -> "'retention' must be positive, was " + retention);
		this.lockOptions = lockOptions;
		this.attributeSource = new IdempotentRequestAttributeSource(retention, rejectAsynchronous);
	}

	/**
	 * Set the response headers that are kept and replayed. {@code Content-Type} is always
	 * kept; {@code Set-Cookie} never is.
	 * @param replayedHeaders the header names, case-insensitive
	 */
	public void setReplayedHeaders(Collection<String> replayedHeaders) {
		this.policy.setReplayedHeaders(replayedHeaders);
	}

	/**
	 * Set whether server error responses (5xx) are kept and replayed. They are not by
	 * default, so that a retry runs the handler again.
	 * @param storeServerErrors {@code true} to keep server errors
	 */
	public void setStoreServerErrors(boolean storeServerErrors) {
		this.policy.setStoreServerErrors(storeServerErrors);
	}

	/**
	 * Set the longest accepted key.
	 * @param maxKeyLength the longest key, in characters, positive
	 */
	public void setMaxKeyLength(int maxKeyLength) {
		this.policy.setMaxKeyLength(maxKeyLength);
	}

	/**
	 * Set the largest accepted request body: larger bodies are rejected with an
	 * {@link IdempotentRequestTooLargeException}, since the body is buffered in memory.
	 * @param maxBodySize the largest body, in bytes, positive
	 */
	public void setMaxBodySize(long maxBodySize) {
		this.policy.setMaxBodySize(maxBodySize);
	}

	/**
	 * Set the largest response body kept for replays. The body of an idempotent request
	 * is held in memory until the request completes, to keep it; a body that grows past
	 * this size is not held further and not kept, and a retry runs the request again: the
	 * client gets it in full all the same, streamed past the bound (in transactional
	 * mode, where a response that cannot be kept rolls the handler's writes back, it gets
	 * a {@code 503} instead). A warning names the handler and the size.
	 * @param maxResponseSize the largest kept body, in bytes, positive
	 */
	public void setMaxResponseSize(long maxResponseSize) {
		this.policy.setMaxResponseSize(maxResponseSize);
	}

	/**
	 * Return the largest response body kept for replays.
	 * @return the largest kept body, in bytes
	 * @see #setMaxResponseSize(long)
	 */
	public long getMaxResponseSize() {
		return this.policy.maxResponseSize();
	}

	/**
	 * Set the listener told how each idempotent request ended.
	 * @param listener the listener, or {@code null} for none
	 */
	public void setListener(@Nullable IdempotentRequestListener listener) {
		this.listener = listener;
	}

	/**
	 * Return the parsed {@link IdempotentRequest} declaration of a handler method, with
	 * the configured retention when the declaration sets none.
	 * @param handlerMethod the handler method
	 * @return the declaration, or {@code null} if the method is not annotated
	 * @throws IllegalStateException if the declaration is invalid
	 */
	public @Nullable IdempotentRequestAttribute getAttribute(HandlerMethod handlerMethod) {
		Assert.notNull(handlerMethod, "'handlerMethod' must not be null");
		return this.attributeSource.getAttribute(handlerMethod.getMethod());
	}

	/**
	 * Return the options of the lock held while an idempotent request runs: the
	 * configured ones, named {@code "idempotency"}, without waiting, since a request
	 * never waits for another with the same key.
	 * @return the lock options
	 */
	public LockOptions getLockOptions() {
		return IdempotencyPolicy.lockOptions(this.lockOptions.get());
	}

	final IdempotencyPolicy policy() {
		return this.policy;
	}

	final IdempotentRequestAttributeSource attributeSource() {
		return this.attributeSource;
	}

	final @Nullable IdempotentRequestAttribute attributeOf(Method method) {
		return this.attributeSource.getAttribute(method);
	}

	final @Nullable IdempotentRequestListener listener() {
		return this.listener;
	}

	/**
	 * Tell the listener, if any, how a request to a handler ended.
	 */
	final void notifyListener(HandlerMethod handler, Outcome outcome) {
		IdempotentRequestListener listener = this.listener;
		if (listener != null) {
			listener.requestHandled(handlerName(handler), outcome);
		}
	}

	static String handlerName(HandlerMethod handler) {
		return IdempotencyPolicy.handlerName(handler.getBeanType(), handler.getMethod().getName());
	}

}
