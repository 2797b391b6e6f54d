package dev.lockstarter.store.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * One run of a script: the script, its {@code KEYS} and its {@code ARGV}, encoded once so
 * that the blocking and the reactive path of an operation send the same bytes.
 *
 * @param <T> the script's answer, a {@code Long} or a {@code List}
 * @param script the script
 * @param keys the script's {@code KEYS}
 * @param args the script's {@code ARGV}
 */
record ScriptCall<T>(RedisScript<T> script, byte[][] keys, byte[][] args) {

	/**
	 * Create a run of a script.
	 * @param script the script
	 * @param keys the Redis keys
	 * @param args the arguments, each a {@code String} (sent as UTF-8) or a
	 * {@code byte[]}
	 * @return the run
	 */
	static <T> ScriptCall<T> of(RedisScript<T> script, List<String> keys, Object... args) {
		byte[][] encodedKeys = new byte[keys.size()][];
		for (int i = 0; i < encodedKeys.length; i++) {
			encodedKeys[i] = bytes(keys.get(i));
		}
		byte[][] encodedArgs = new byte[args.length][];
		for (int i = 0; i < encodedArgs.length; i++) {
			encodedArgs[i] = (args[i] instanceof byte[] raw) ? raw : bytes(args[i].toString());
		}
		return new ScriptCall<>(script, encodedKeys, encodedArgs);
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Return the keys and then the arguments, as {@code EVAL} takes them.
	 * @return the keys and arguments
	 */
	byte[][] keysAndArgs() {
		byte[][] all = new byte[this.keys.length + this.args.length][];
		System.arraycopy(this.keys, 0, all, 0, this.keys.length);
		System.arraycopy(this.args, 0, all, this.keys.length, this.args.length);
		return all;
	}

}
