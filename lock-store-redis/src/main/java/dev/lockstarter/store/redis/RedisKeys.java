package dev.lockstarter.store.redis;

import java.util.List;

import org.jspecify.annotations.Nullable;

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
	 * Return the lock key prefix, which starts every key made for a store key that has
	 * it.
	 * @return the prefix, possibly empty
	 */
	String prefix() {
		return this.prefix;
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

	/**
	 * Return the store key whose lock is the given Redis key: the reverse of
	 * {@link #lockKey}.
	 * @param redisKey a Redis key
	 * @return the store key, or {@code null} when the Redis key is not the lock of any
	 * store key: a key related to a lock (such as its fencing counter or its result), or
	 * a key of another layout
	 */
	@Nullable String storeKey(String redisKey) {
		int open = redisKey.indexOf('{');
		if (open < 0 || !redisKey.endsWith("}") || redisKey.length() < open + 2) {
			return null;
		}
		String head = redisKey.substring(0, open);
		if (!head.isEmpty() && !head.equals(this.prefix)) {
			return null;
		}
		int rest = (redisKey.charAt(open + 1) == ESCAPE) ? open + 2 : open + 1;
		String storeKey = head + redisKey.substring(rest, redisKey.length() - 1);
		return lockKey(storeKey).equals(redisKey) ? storeKey : null;
	}

	/**
	 * Return the {@code SCAN} patterns that match the lock of every store key that starts
	 * with a prefix, among other keys: one, or two for a prefix that is the start of the
	 * store's own prefix (store keys without the store's prefix are wrapped whole). The
	 * prefix's glob characters ({@code * ? [ ] \}) are escaped.
	 * @param storeKeyPrefix the start of the store keys
	 * @return the patterns
	 */
	List<String> lockKeyPatterns(String storeKeyPrefix) {
		if (storeKeyPrefix.startsWith(this.prefix)) {
			return List.of(glob(this.prefix + "{" + escaped(storeKeyPrefix.substring(this.prefix.length()))) + "*");
		}
		String unprefixed = glob("{" + escaped(storeKeyPrefix)) + "*";
		return this.prefix.startsWith(storeKeyPrefix) ? List.of(unprefixed, glob(this.prefix + "{") + "*")
				: List.of(unprefixed);
	}

	/**
	 * The start of the text inside a lock key's braces, for a store key that starts with
	 * {@code start} after the prefix: escaped as {@link #lockKey} escapes it.
	 */
	private static String escaped(String start) {
		if (!start.isEmpty() && (start.charAt(0) == '}' || start.charAt(0) == ESCAPE)) {
			return ESCAPE + start;
		}
		return start;
	}

	/**
	 * Escape the characters that a {@code SCAN} pattern reads as glob, so that they match
	 * themselves.
	 */
	private static String glob(String literal) {
		StringBuilder pattern = new StringBuilder(literal.length() + 8);
		for (int i = 0; i < literal.length(); i++) {
			char c = literal.charAt(i);
			if ("*?[]\\".indexOf(c) >= 0) {
				pattern.append(ESCAPE);
			}
			pattern.append(c);
		}
		return pattern.toString();
	}

}
