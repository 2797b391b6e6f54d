package dev.lockstarter.store.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * What Lettuce needs to send a script: its SHA-1, its text and the type of its answer.
 * Only touched when Lettuce is on the classpath.
 */
final class LettuceScripts {

	/**
	 * The SHA-1 of each script, read without the lock that
	 * {@code DefaultRedisScript.getSha1()} takes on every call, which an event-loop
	 * thread must not wait for.
	 */
	private static final Map<RedisScript<?>, String> sha1s = new ConcurrentHashMap<>();

	private LettuceScripts() {
	}

	/**
	 * Compute the SHA-1 of scripts ahead of their use on an event-loop thread.
	 * @param scripts the scripts
	 */
	static void prepare(RedisScript<?>... scripts) {
		for (RedisScript<?> script : scripts) {
			sha1(script);
		}
	}

	/**
	 * Send a script by its SHA-1: {@code EVALSHA}.
	 * @param commands the commands to send it with
	 * @param call the script and its arguments
	 * @return the answer
	 */
	static <T> RedisFuture<T> evalsha(RedisClusterAsyncCommands<byte[], byte[]> commands, ScriptCall<T> call) {
		return commands.evalsha(sha1(call.script()), outputType(call.script()), call.keys(), call.args());
	}

	/**
	 * Send a script by its text: {@code EVAL}, after Redis answered {@code NOSCRIPT}.
	 * @param commands the commands to send it with
	 * @param call the script and its arguments
	 * @return the answer
	 */
	static <T> RedisFuture<T> eval(RedisClusterAsyncCommands<byte[], byte[]> commands, ScriptCall<T> call) {
		return commands.eval(text(call.script()), outputType(call.script()), call.keys(), call.args());
	}

	static String sha1(RedisScript<?> script) {
		String sha1 = sha1s.get(script);
		if (sha1 == null) {
			sha1 = script.getSha1();
			sha1s.put(script, sha1);
		}
		return sha1;
	}

	private static byte[] text(RedisScript<?> script) {
		return script.getScriptAsString().getBytes(StandardCharsets.UTF_8);
	}

	private static ScriptOutputType outputType(RedisScript<?> script) {
		Class<?> type = script.getResultType();
		return (type != null && List.class.isAssignableFrom(type)) ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER;
	}

}
