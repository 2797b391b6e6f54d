package dev.lockstarter.store.redis;

import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLockStoreRuntimeHints}.
 */
class RedisLockStoreRuntimeHintsTests {

	@Test
	void lettuceTypeLookedUpByNameIsRegisteredWithoutMembers() {
		RuntimeHints hints = new RuntimeHints();
		new RedisLockStoreRuntimeHints().registerHints(hints, getClass().getClassLoader());
		assertThat(RuntimeHintsPredicates.reflection().onType(RedisClusterClient.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(RedisClusterClient.class)
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).rejects(hints);
	}

	@Test
	void registrarIsListedInAotFactories() {
		assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(RedisLockStoreRuntimeHints.class);
	}

}
