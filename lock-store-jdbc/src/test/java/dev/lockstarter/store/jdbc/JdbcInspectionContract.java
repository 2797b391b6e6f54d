package dev.lockstarter.store.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.StoredLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The JDBC store's own promises as an {@link dev.lockstarter.store.InspectableLockStore},
 * beyond the contract kit's: a prefix is compared as a string, never as a pattern, in the
 * order of the key column; expired rows are neither listed nor force-released; a
 * force-release keeps the result stored next to the lock. Run by
 * {@link PostgresJdbcLockStoreContractTests}, {@link MariaDbJdbcLockStoreContractTests}
 * and {@link H2JdbcLockStoreContractTests}.
 */
interface JdbcInspectionContract {

	Duration INSPECTED_TTL = Duration.ofSeconds(30);

	/**
	 * Return the store under test.
	 */
	JdbcLockStore inspectedStore();

	@Test
	default void aPrefixWithPatternCharactersListsOnlyTheKeysThatStartWithIt() {
		JdbcLockStore store = inspectedStore();
		String base = base();
		String prefix = base + "50%_off\\";
		// Each would match the prefix as a LIKE pattern without escapes
		List<String> others = List.of(base + "50%Xoff\\a", base + "50abc_off\\a", base + "50%_off!a", base + "50%_off",
				base + "5", base + "50%_ofg");
		String token = UUID.randomUUID().toString();
		for (String key : others) {
			assertThat(store.tryAcquire(key, token, INSPECTED_TTL).isAcquired()).isTrue();
		}
		assertThat(store.tryAcquire(prefix + "b", token, INSPECTED_TTL).isAcquired()).isTrue();
		assertThat(store.tryAcquire(prefix + "a", token, INSPECTED_TTL).isAcquired()).isTrue();

		assertThat(store.holders(prefix, 10)).extracting(StoredLock::key).containsExactly(prefix + "a", prefix + "b");
		assertThat(store.holders(base + "50_", 10)).as("'_' is no wildcard").isEmpty();
		assertThat(store.holders(base + "%", 10)).as("'%' is no wildcard").isEmpty();
		assertThat(store.holders(base + "50%", 10)).extracting(StoredLock::key)
			.containsExactly(base + "50%Xoff\\a", base + "50%_off", base + "50%_off!a", prefix + "a", prefix + "b",
					base + "50%_ofg");
		assertThat(store.holders(base, 10)).hasSize(others.size() + 2);
	}

	@Test
	default void aPrefixEndingInAnyCharacterListsOnlyTheKeysThatStartWithIt() {
		JdbcLockStore store = inspectedStore();
		String base = base();
		String token = UUID.randomUUID().toString();
		// Around the surrogates, which order keys differently in UTF-16 and in code
		// points
		List<String> keys = List.of(base + "\uD7FE", base + "\uD7FF", base + "\uD7FF1", base + "\uE000",
				base + "\uD83D\uDE00", base + "\uD83D\uDE00x", base + "\uD83D\uDE01", base + "\uFFFD");
		for (String key : keys) {
			assertThat(store.tryAcquire(key, token, INSPECTED_TTL).isAcquired()).isTrue();
		}

		assertThat(store.holders(base + "\uD7FF", 10)).extracting(StoredLock::key)
			.containsExactly(base + "\uD7FF", base + "\uD7FF1");
		assertThat(store.holders(base + "\uD83D\uDE00", 10)).extracting(StoredLock::key)
			.containsExactly(base + "\uD83D\uDE00", base + "\uD83D\uDE00x");
		assertThat(store.holders(base + "\uFFFD", 10)).extracting(StoredLock::key).containsExactly(base + "\uFFFD");
		assertThat(store.holders(base, 10)).extracting(StoredLock::key).containsExactlyInAnyOrderElementsOf(keys);
		assertThat(store.holders(base + "\u0000", 10)).as("a prefix no stored key has").isEmpty();
		assertThat(store.holders(base + "\uDE00", 10)).as("a prefix no stored key has").isEmpty();
		assertThat(store.holders(base + "x".repeat(300), 10)).as("a prefix longer than any stored key").isEmpty();
	}

	@Test
	default void anExpiredLockIsNeitherListedNorForceReleased() {
		JdbcLockStore store = inspectedStore();
		String key = base() + "expiring";
		assertThat(store.tryAcquire(key, UUID.randomUUID().toString(), Duration.ofMillis(300)).isAcquired()).isTrue();
		assertThat(store.holders(key, 10)).extracting(StoredLock::key).containsExactly(key);

		await().atMost(Duration.ofSeconds(5)).until(() -> store.timeToExpiry(key).isZero());

		assertThat(store.holders(key, 10)).isEmpty();
		assertThat(store.forceRelease(key)).isFalse();
	}

	@Test
	default void aKeyStoredHashedIsForceReleasedByItsKey() {
		JdbcLockStore store = inspectedStore();
		String key = base() + "long:" + "k".repeat(300);
		assertThat(store.tryAcquire(key, UUID.randomUUID().toString(), INSPECTED_TTL).isAcquired()).isTrue();
		assertThat(store.holders(JdbcLockStore.storedKey(key), 10)).hasSize(1);

		assertThat(store.forceRelease(key)).isTrue();

		assertThat(store.holders(JdbcLockStore.storedKey(key), 10)).isEmpty();
	}

	private static String base() {
		return "jdbc-inspection:" + UUID.randomUUID() + ":";
	}

}
