package dev.lockstarter.store.redis;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * {@link RuntimeHintsRegistrar} for the Lettuce type that the store looks up by name
 * ({@link RedisCommandExecutor#LETTUCE_TYPE_NAME}), so that a native image detects
 * Lettuce as the JVM does: without it, the store would use neither its Lettuce executor
 * (the timeouts, sharded pub/sub on a cluster) nor the Lettuce form of {@code WAIT}.
 */
class RedisLockStoreRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection().registerTypeIfPresent(classLoader, RedisCommandExecutor.LETTUCE_TYPE_NAME);
	}

}
