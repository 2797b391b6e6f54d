package dev.lockstarter.store.redis;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;

/**
 * Commands that Spring Data Redis does not offer, sent through Lettuce with the right
 * reply type. Only touched when Lettuce is on the classpath.
 */
final class LettuceCommands {

	private LettuceCommands() {
	}

	/**
	 * Send {@code WAIT} on a connection, in a pipeline if the connection has one open.
	 * @param connection the connection, a {@link LettuceConnection} or any other
	 * @param args the arguments of {@code WAIT}
	 * @return whether the command was sent with an integer reply type
	 */
	static boolean sendWait(RedisConnection connection, byte[]... args) {
		if (connection instanceof LettuceConnection lettuce) {
			lettuce.execute("WAIT", new IntegerOutput<>(ByteArrayCodec.INSTANCE), args);
			return true;
		}
		return false;
	}

}
