package dev.lockstarter.store.redis;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link RedisKeys}.
 */
class RedisKeysTests {

	private final RedisKeys keys = new RedisKeys("lock:");

	@Test
	void partAfterThePrefixBecomesTheHashTag() {
		assertThat(this.keys.lockKey("lock:UserService.register:alice")).isEqualTo("lock:{UserService.register:alice}");
		assertThat(this.keys.related("lock:UserService.register:alice", "fence"))
			.isEqualTo("lock:{UserService.register:alice}:fence");
		assertThat(this.keys.related("lock:UserService.register:alice", "result"))
			.isEqualTo("lock:{UserService.register:alice}:result");
	}

	@Test
	void keyWithoutThePrefixIsWrappedWhole() {
		assertThat(this.keys.lockKey("other:key")).isEqualTo("{other:key}");
		assertThat(new RedisKeys("").lockKey("any:key")).isEqualTo("{any:key}");
	}

	@Test
	void relatedKeysShareTheSlotWhateverBracesTheValueContains() {
		List<String> values = List.of("alice", "a}b", "}", "}}", "{", "{}", "{a}", "a{b}c", "}a{b}", "\\", "\\}x", "",
				"x{", "{{}}", "ü{锁}", "#{T(java.lang.Runtime)}", "a\r\n{b}");
		for (String value : values) {
			for (String key : List.of("lock:" + value, "lock:Service.method:" + value, value)) {
				int slot = ClusterSlotHashUtil.calculateSlot(this.keys.lockKey(key));
				for (String suffix : List.of("fence", "result", "released")) {
					assertThat(ClusterSlotHashUtil.calculateSlot(this.keys.related(key, suffix)))
						.as("slot of %s for store key '%s' (lock key '%s')", suffix, key, this.keys.lockKey(key))
						.isEqualTo(slot);
				}
			}
		}
	}

	@Test
	void distinctStoreKeysGiveDistinctLockKeys() {
		List<String> storeKeys = List.of("lock:", "lock:}", "lock:\\}", "lock:\\", "lock:\\\\", "lock:}}", "lock:a",
				"lock:\\a", "}", "\\}", "", "\\", "a", "{a}", "lock:{a}", "lock{a}", "{lock:a}", "lock:lock:a");
		Set<String> lockKeys = new HashSet<>();
		for (String key : storeKeys) {
			lockKeys.add(this.keys.lockKey(key));
		}
		assertThat(lockKeys).hasSameSizeAs(storeKeys);
	}

	@Test
	void valuesThatWouldGiveAnEmptyHashTagAreEscaped() {
		assertThat(this.keys.lockKey("lock:}x")).isEqualTo("lock:{\\}x}");
		assertThat(this.keys.lockKey("lock:")).isEqualTo("lock:{\\}");
		assertThat(this.keys.lockKey("lock:\\x")).isEqualTo("lock:{\\\\x}");
	}

	@Test
	void aLockKeyGivesBackItsStoreKeyAndNoOtherKeyDoes() {
		List<String> storeKeys = List.of("lock:", "lock:}", "lock:\\}", "lock:\\", "lock:a", "lock:a}:fence", "}", "",
				"\\", "a", "{a}", "lock{a}", "{lock:a}", "lock:lock:a", "ü{锁}:x");
		for (String storeKey : storeKeys) {
			String lockKey = this.keys.lockKey(storeKey);
			assertThat(this.keys.storeKey(lockKey)).as("store key of %s", lockKey).isEqualTo(storeKey);
			for (String suffix : List.of("fence", "result", "released", "holders", "writers", "watched")) {
				assertThat(this.keys.storeKey(this.keys.related(storeKey, suffix))).isNull();
			}
		}
		assertThat(this.keys.storeKey("{lock:a}")).as("no store key with the prefix is wrapped whole").isNull();
		assertThat(this.keys.storeKey("app:{a}")).as("another prefix").isNull();
		assertThat(this.keys.storeKey("lock:{}")).isNull();
		assertThat(this.keys.storeKey("lock:a")).isNull();
		assertThat(new RedisKeys("").storeKey("{lock:a}")).isEqualTo("lock:a");
	}

	@Test
	void scanPatternsEscapeGlobCharactersAndTheLeadingBraceOrBackslash() {
		assertThat(this.keys.lockKeyPatterns("lock:job:")).containsExactly("lock:{job:*");
		assertThat(this.keys.lockKeyPatterns("lock:")).containsExactly("lock:{*");
		assertThat(this.keys.lockKeyPatterns("lock:a*b?[c]\\d")).containsExactly("lock:{a\\*b\\?\\[c\\]\\\\d*");
		assertThat(this.keys.lockKeyPatterns("lock:}x")).containsExactly("lock:{\\\\}x*");
		assertThat(this.keys.lockKeyPatterns("lock:\\x")).containsExactly("lock:{\\\\\\\\x*");
		assertThat(this.keys.lockKeyPatterns("other*:")).containsExactly("{other\\*:*");
		assertThat(this.keys.lockKeyPatterns("lo")).containsExactly("{lo*", "lock:{*");
		assertThat(this.keys.lockKeyPatterns("")).containsExactly("{*", "lock:{*");
		assertThat(new RedisKeys("app[1]*:").lockKeyPatterns("app[1]*:x")).containsExactly("app\\[1\\]\\*:{x*");
		assertThat(new RedisKeys("").lockKeyPatterns("x?")).containsExactly("{x\\?*");
	}

	@Test
	void prefixWithABraceIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RedisKeys("app{1}:"))
			.withMessageContaining("must not contain '{' or '}'");
	}

}
