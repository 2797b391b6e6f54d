package dev.lockstarter.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Internal;

/**
 * How one {@link dev.lockstarter.annotation.ExclusiveRequest} method with
 * {@link dev.lockstarter.annotation.OnConflict#SHARE_RESULT} shares its result: the type
 * its result is serialized as, how long it is kept, and what happens when the holder
 * throws.
 *
 * @since 0.1.0
 */
@Internal
public final class ResultSharing {

	private final Method method;

	private final Type resultType;

	private final boolean voidResult;

	private final @Nullable Duration resultTtl;

	private final boolean takeOverOnFailure;

	ResultSharing(Method method, Type resultType, boolean voidResult, @Nullable Duration resultTtl,
			boolean takeOverOnFailure) {
		this.method = method;
		this.resultType = resultType;
		this.voidResult = voidResult;
		this.resultTtl = resultTtl;
		this.takeOverOnFailure = takeOverOnFailure;
	}

	/**
	 * Return the annotated method.
	 * @return the method
	 */
	public Method method() {
		return this.method;
	}

	/**
	 * Return the type of the shared value: the method's generic return type, or the value
	 * type of its {@link java.util.concurrent.CompletionStage} or single-value reactive
	 * type (the {@code T} of a {@code Mono<T>}).
	 * @return the result type
	 */
	public Type resultType() {
		return this.resultType;
	}

	/**
	 * Return whether the method returns no value ({@code void}, or a stage or
	 * {@code Mono} of {@code Void}).
	 * @return {@code true} if only the completion is shared
	 */
	public boolean voidResult() {
		return this.voidResult;
	}

	/**
	 * Return how long the result is kept.
	 * @return the result time-to-live, or {@code null} for the configured default
	 */
	public @Nullable Duration resultTtl() {
		return this.resultTtl;
	}

	/**
	 * Return whether a waiting caller takes over when the holder throws, instead of
	 * failing like it.
	 * @return {@code true} to take over
	 */
	public boolean takeOverOnFailure() {
		return this.takeOverOnFailure;
	}

	/**
	 * Return the method as {@code ClassName.method(ParamType, ...)}, for messages.
	 * @return the method's description
	 */
	public String describeMethod() {
		return InvalidLockDeclarationException.describe(this.method);
	}

}
