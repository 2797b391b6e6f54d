package dev.lockstarter.autoconfigure;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.redis.RedisServer;

/**
 * Looks at the locks and release channels in a Redis server without depending on the key
 * layout: a lock key {@code lock:Name.method:value} may be stored as it is or with the
 * part after the prefix in a hash tag ({@code lock:{Name.method:value}}), and its fencing
 * counter next to it ends with {@code :fence}.
 */
final class StoredLocks {

	private static final String PREFIX = "lock:";

	private StoredLocks() {
	}

	/**
	 * Return the Redis key that holds the lock named {@code lockKey}, or {@code null}.
	 */
	static @Nullable String find(RedisServer redis, String lockKey) {
		String name = lockKey.startsWith(PREFIX) ? lockKey.substring(PREFIX.length()) : lockKey;
		for (String key : lines(redis.command("KEYS", "*" + name + "*"))) {
			if (!key.endsWith(":fence")) {
				return key;
			}
		}
		return null;
	}

	/**
	 * Return whether the lock named {@code lockKey} is held.
	 */
	static boolean isHeld(RedisServer redis, String lockKey) {
		return find(redis, lockKey) != null;
	}

	/**
	 * Return the channels, sharded or not, that have at least one subscriber.
	 */
	static List<String> subscribedChannels(RedisServer redis) {
		List<String> channels = new ArrayList<>(lines(redis.command("PUBSUB", "CHANNELS")));
		channels.addAll(lines(redis.command("PUBSUB", "SHARDCHANNELS")));
		return channels;
	}

	private static List<String> lines(@Nullable String reply) {
		if (reply == null || reply.isBlank()) {
			return List.of();
		}
		return Arrays.stream(reply.split("\n")).map(String::strip).filter((line) -> !line.isEmpty()).toList();
	}

}
