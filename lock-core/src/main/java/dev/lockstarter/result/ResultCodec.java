package dev.lockstarter.result;

import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;

/**
 * Turns the result of a method into bytes that the lock store keeps for the callers that
 * wait for it, and back, with {@code @ExclusiveRequest(onConflict = SHARE_RESULT)}. The
 * holder encodes in one application instance and the waiting callers decode in others, so
 * both sides must agree on the format.
 *
 * @since 0.1.0
 * @see JacksonResultCodec
 */
public interface ResultCodec {

	/**
	 * Encode a method's result.
	 * @param value the result, possibly {@code null}
	 * @param type the method's declared (generic) result type
	 * @return the bytes to keep
	 * @throws RuntimeException if the value cannot be encoded
	 */
	byte[] encode(@Nullable Object value, Type type);

	/**
	 * Decode a result encoded by {@link #encode}.
	 * @param bytes the kept bytes
	 * @param type the method's declared (generic) result type
	 * @return the result, possibly {@code null}
	 * @throws RuntimeException if the bytes cannot be decoded to the type
	 */
	@Nullable Object decode(byte[] bytes, Type type);

}
