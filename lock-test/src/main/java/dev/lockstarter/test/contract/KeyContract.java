package dev.lockstarter.test.contract;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.LockStore;

import static dev.lockstarter.test.contract.StoreUnderTest.LONG_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.printable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keys are arbitrary strings: keys with spaces, line breaks, control or non-ASCII
 * characters, keys that spell protocol commands, keys that look like the hash of another
 * key, and keys of a megabyte are all distinct locks that leave other locks alone.
 */
interface KeyContract extends StoreContract {

	@Test
	default void keysWithUnusualCharactersAreDistinctLocks() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String base = fixture.uniqueKey("unusual");
		List<String> keys = List.of(base + " with spaces", base + "with spaces", base + "with\tspaces", base + ":",
				base + "::", base + "ünïcödé 锁 🔒", base + "unicode", base + "\r\n", base + "\n", base + "\r\n\r\n",
				base + "\r\n*1\r\n$8\r\nFLUSHALL\r\n", base + "\"'`$%{}[]*?\\", base + "\u0000", base + "#sha256:x");
		List<String> tokens = new ArrayList<>();
		for (String key : keys) {
			String token = fixture.uniqueToken();
			assertThat(store.tryAcquire(key, token, LONG_TTL).isAcquired()).as("acquire %s", printable(key)).isTrue();
			tokens.add(token);
		}
		for (String key : keys) {
			fixture.assertHeld(key);
		}
		for (int i = 0; i < keys.size(); i++) {
			assertThat(store.release(keys.get(i), tokens.get(i))).as("release %s", printable(keys.get(i))).isTrue();
			assertThat(store.release(keys.get(i), tokens.get(i))).isFalse();
		}
	}

	@Test
	default void keysOfTheMaximumLengthAreDistinctLocks() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String base = fixture.uniqueKey("long") + ":ü";
		StringBuilder padding = new StringBuilder(base);
		while (padding.toString().getBytes(StandardCharsets.UTF_8).length < 249) {
			padding.append('x');
		}
		String first = padding + "a";
		String second = padding + "b";
		assertThat(first.getBytes(StandardCharsets.UTF_8)).hasSize(250);
		String firstOwner = fixture.uniqueToken();
		String secondOwner = fixture.uniqueToken();
		assertThat(store.tryAcquire(first, firstOwner, LONG_TTL).isAcquired()).isTrue();
		assertThat(store.tryAcquire(second, secondOwner, LONG_TTL).isAcquired()).isTrue();
		fixture.assertHeld(first);
		assertThat(store.release(first, firstOwner)).isTrue();
		assertThat(store.release(second, secondOwner)).isTrue();
	}

	@Test
	default void keysThatSpellProtocolCommandsDoNotAffectOtherLocks() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String canary = fixture.uniqueKey("canary");
		String canaryOwner = fixture.uniqueToken();
		assertThat(store.tryAcquire(canary, canaryOwner, LONG_TTL).isAcquired()).isTrue();
		String base = fixture.uniqueKey("injection");
		int canaryBytes = canary.getBytes(StandardCharsets.UTF_8).length;
		List<String> keys = List.of(base + "\r\nflush_all", base + "\r\nflush_all\r\n", "\r\nflush_all\r\n" + base,
				base + "\nflush_all\n", base + " 0 0 1\r\nx\r\nflush_all\r\n", base + "\r\ndelete " + canary + "\r\n",
				base + "\r\nmd " + canary + "\r\n", base + "\r\nflush_all noreply\r\n", base + "\u0000flush_all",
				base + "\r\n*1\r\n$8\r\nFLUSHALL\r\n",
				base + "\r\n*2\r\n$3\r\nDEL\r\n$" + canaryBytes + "\r\n" + canary + "\r\n");
		for (String key : keys) {
			String token = fixture.uniqueToken();
			assertThat(store.tryAcquire(key, token, LONG_TTL).isAcquired()).as("acquire %s", printable(key)).isTrue();
			assertThat(store.extend(key, token, LONG_TTL)).as("extend %s", printable(key)).isTrue();
			fixture.assertHeld(key);
			fixture.assertHeld(canary);
			assertThat(store.release(key, token)).as("release %s", printable(key)).isTrue();
			fixture.assertHeld(canary);
		}
		assertThat(store.release(canary, canaryOwner)).isTrue();
	}

	@Test
	default void keysThatASanitizerWouldMergeAreDistinctLocks() {
		StoreUnderTest fixture = storeUnderTest();
		String base = fixture.uniqueKey("sanitized");
		List<String> keys = List.of(base + "a b", base + "a_b", base + "a+b", base + "a%20b", base + "a\tb",
				base + "a\nb", base + "a\r\nb", base + "ab", base + "a\u00a0b", base + "a\u0000b", base + "a\u007fb",
				base + "a?b", base + "aüb", base + "a\u00c3\u00bcb", base + "A B", base + " a b", base + "a b ");
		assertDistinctLocks(keys);
	}

	@Test
	default void veryLongKeysAreDistinctLocks() {
		StoreUnderTest fixture = storeUnderTest();
		String base = fixture.uniqueKey("very-long");
		StringBuilder ascii = new StringBuilder(base);
		while (ascii.length() < 250) {
			ascii.append('x');
		}
		String megabyte = "y".repeat(1024 * 1024);
		List<String> keys = List.of(ascii.toString(), ascii + "x", ascii + "y", base + megabyte, base + megabyte + "a",
				base + megabyte + "b", base + "ü".repeat(512 * 1024), base + "ü".repeat(512 * 1024) + " ");
		assertDistinctLocks(keys);
	}

	@Test
	default void keysThatLookLikeTheHashOfAnotherKeyAreDistinctLocks() {
		StoreUnderTest fixture = storeUnderTest();
		String spaced = fixture.uniqueKey("lookalike") + " with spaces, ünïcödé\r\n";
		String longKey = fixture.uniqueKey("lookalike") + "z".repeat(3000);
		List<String> keys = List.of(spaced, hashed(spaced), longKey, hashed(longKey), "lock:" + hashed(spaced),
				hashed(hashed(spaced)));
		assertDistinctLocks(keys);
	}

	/** Every key is a lock of its own: all can be held at once, and each is released. */
	private void assertDistinctLocks(List<String> keys) {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		List<String> tokens = new ArrayList<>();
		for (String key : keys) {
			String token = fixture.uniqueToken();
			assertThat(store.tryAcquire(key, token, LONG_TTL).isAcquired())
				.as("acquire %s, distinct from the keys acquired before it", printable(key))
				.isTrue();
			tokens.add(token);
		}
		for (String key : keys) {
			fixture.assertHeld(key);
		}
		for (int i = 0; i < keys.size(); i++) {
			assertThat(store.release(keys.get(i), tokens.get(i))).as("release %s", printable(keys.get(i))).isTrue();
		}
	}

	/**
	 * The key that stands for a long key as {@link dev.lockstarter.core.LockTemplate}
	 * hashes it: the marker {@code #sha256:} and the digest.
	 */
	private static String hashed(String key) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
			return "#sha256:" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is not available", ex);
		}
	}

}
