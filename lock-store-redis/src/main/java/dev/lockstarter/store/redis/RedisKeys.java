package dev.lockstarter.store.redis;

import org.springframework.util.Assert;

/**
 * The Redis keys of a lock: one place that turns a store key into the keys and channel
 * that Redis sees, so that everything one lock touches lives in one Redis Cluster hash
 * slot.
 * <p>
 * A store key arrives with the lock key prefix, {@code lock:UserService.register:alice}.
 * The part after the prefix becomes a hash tag:
 * <code>lock:{UserService.register:alice}</code>. Every key and channel of the lock
 * appends to that: the fencing counter
 * <code>lock:{UserService.register:alice}:fence</code>, a stored result
 * <code>...}:result</code>, the sharded release channel <code>...}:released</code>. A
 * store key without the prefix is wrapped whole: <code>{other-key}</code>.
 * <p>
 * <b>Why braces in a key cannot split a lock across slots.</b> Redis Cluster hashes the
 * text between the first <code>{</code> of a key and the first <code>}</code> after it,
 * provided that text is not empty. The prefix contains no brace (checked), so the first
 * <code>{</code> is always the one added here, and the lock key always ends with the
 * added <code>}</code>: the first <code>}</code> after the opening brace therefore lies
 * at the latest on that final brace, inside the lock key. All related keys start with the
 * whole lock key, so they see the same first <code>{</code>, the same first
 * <code>}</code> and hash the same text, whatever braces the user's value contains
 * (<code>lock:{a}b}</code> and its fence <code>lock:{a}b}:fence</code> both hash
 * {@code a}). The one text that would give an empty tag, a part that is empty or starts
 * with <code>}</code>, is escaped by a leading {@code \} (as is a part that itself starts
 * with {@code \}, so the mapping stays one-to-one): <code>lock:}x</code> becomes
 * <code>lock:{\}x}</code>.
 * <p>
 * Distinct store keys always map to distinct lock keys: the part after the prefix is kept
 * as is apart from that reversible escape, and a key without the prefix starts with
 * <code>{</code> while a prefixed one starts with the (brace-free) prefix.
 */
final class RedisKeys {

	private static final char ESCAPE = '\\';

	private final String prefix;

	/**
	 * Create the key layout for a key prefix.
	 * @param prefix the lock key prefix, such as {@code lock:}, without braces; may be
	 * empty
	 */
	RedisKeys(String prefix) {
		Assert.notNull(prefix, "'prefix' must not be null");
		Assert.isTrue(prefix.indexOf('{') < 0 && prefix.indexOf('}') < 0,
				() -> "The key prefix must not contain '{' or '}', which Redis Cluster reads as a hash tag: '" + prefix
						+ "'");
		this.prefix = prefix;
	}

	/**
	 * Return the Redis key of the lock on a store key.
	 * @param key the store key, usually starting with the prefix
	 * @return the Redis key, such as <code>lock:{UserService.register:alice}</code>
	 */
	String lockKey(String key) {
		int rest = key.startsWith(this.prefix) ? this.prefix.length() : 0;
		StringBuilder redisKey = new StringBuilder(key.length() + 4);
		redisKey.append(key, 0, rest).append('{');
		if (rest == key.length() || key.charAt(rest) == '}' || key.charAt(rest) == ESCAPE) {
			redisKey.append(ESCAPE);
		}
		return redisKey.append(key, rest, key.length()).append('}').toString();
	}

	/**
	 * Return a key (or sharded channel) that belongs to the lock on a store key, in the
	 * lock's hash slot.
	 * @param key the store key
	 * @param suffix what the related key holds, such as {@code fence} or {@code result}
	 * @return the related key, such as
	 * <code>lock:{UserService.register:alice}:fence</code>
	 */
	String related(String key, String suffix) {
		return lockKey(key) + ":" + suffix;
	}

}
