package dev.lockstarter.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.core.LockHolders.LockHolder;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.HashedKeys;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The operator's view of the locks of two instances (two templates on one in-memory
 * store): the holders under a prefix with their owners' fingerprints, which of them this
 * instance holds, and a force-release that the holder finds as a lost lock.
 */
class LockHoldersTests {

	private static final LockOptions LONG = LockOptions.ttl(Duration.ofSeconds(30));

	private final InMemoryLockStore store = new InMemoryLockStore();

	private final List<LockTemplate> instances = new ArrayList<>();

	private final LockTemplate here = newInstance();

	private final LockTemplate there = newInstance();

	private final String prefix = "order:" + UUID.randomUUID() + ":";

	@AfterEach
	void destroyInstances() {
		this.instances.forEach(LockTemplate::destroy);
	}

	@Test
	void listsTheHoldersOfEveryInstanceAndWhichAreHeldHere() {
		LockAttempt mine = this.here.tryAcquire(this.prefix + "1", LONG);
		LockAttempt theirs = this.there.tryAcquire(this.prefix + "2", LONG.withTtl(Duration.ofSeconds(10)));
		this.here.tryAcquire("other:" + UUID.randomUUID(), LONG);

		List<LockHolder> holders = holders(this.here).find(this.prefix, 10).holders();

		assertThat(holders).extracting(LockHolder::key).containsExactly(this.prefix + "1", this.prefix + "2");
		assertThat(holders).extracting(LockHolder::heldHere).containsExactly(true, false);
		assertThat(holders).extracting(LockHolder::fencingToken)
			.containsExactly(mine.lease().fencingToken(), theirs.lease().fencingToken());
		assertThat(holders.get(0).owner()).hasSize(LockHolders.FINGERPRINT_LENGTH).isNotEqualTo(holders.get(1).owner());
		assertThat(holders.get(1).timeToExpiry()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10));
		assertThat(holders(this.there).find(this.prefix, 10).holders()).extracting(LockHolder::heldHere)
			.containsExactly(false, true);
		assertThat(holders(this.here).find(this.prefix, 10).holders()).extracting(LockHolder::owner)
			.as("the same acquisition, the same fingerprint")
			.isEqualTo(holders.stream().map(LockHolder::owner).toList());
	}

	@Test
	void aForceReleasedLockIsFoundLostByItsHolderAndFreeToOthers() {
		List<String> lost = new CopyOnWriteArrayList<>();
		this.there.addListener(new LockListener() {

			@Override
			public void lost(HeldLock lock, String reason) {
				lost.add(lock.key());
			}

		});
		String key = this.prefix + "stuck";
		LockAttempt stuck = this.there.tryAcquire(key, LockOptions.ttl(Duration.ofMillis(600)));
		assertThat(stuck.isAcquired()).isTrue();

		assertThat(holders(this.here).forceRelease(key)).isTrue();

		assertThat(holders(this.here).find(key, 10).holders()).isEmpty();
		LockAttempt next = this.here.tryAcquire(key, LONG);
		assertThat(next.isAcquired()).as("the key is free").isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> lost.contains(key));
		assertThat(stuck.lease().isHeld()).as("the former holder's lease").isFalse();
		assertThat(stuck.lease().release()).as("the former holder's release").isFalse();
		assertThat(next.lease().isHeld()).as("the new holder's lock is untouched").isTrue();
		assertThat(holders(this.here).forceRelease(this.prefix + "free")).isFalse();
	}

	@Test
	void aForceReleaseOfTheListedHolderLeavesALockTakenSinceTheListingAlone() {
		String key = this.prefix + "stuck";
		LockAttempt listed = this.there.tryAcquire(key, LONG);
		String owner = holders(this.here).find(key, 10).holders().get(0).owner();
		assertThat(listed.lease().release()).as("released after the listing").isTrue();
		LockAttempt since = this.there.tryAcquire(key, LONG);
		assertThat(since.isAcquired()).isTrue();

		assertThat(holders(this.here).forceRelease(key, owner)).as("the listed holder, gone").isFalse();
		assertThat(since.lease().isHeld()).as("the lock taken since the listing").isTrue();
		assertThat(holders(this.here).find(key, 10).holders()).singleElement()
			.extracting(LockHolder::owner)
			.isNotEqualTo(owner);

		String current = holders(this.here).find(key, 10).holders().get(0).owner();
		assertThat(holders(this.here).forceRelease(key, current)).as("the holder listed now").isTrue();
		assertThat(this.here.tryAcquire(key, LONG).isAcquired()).as("the key is free").isTrue();
		assertThat(holders(this.here).forceRelease(this.prefix + "free", current)).isFalse();
	}

	@Test
	void aKeyKeptHashedIsNotListedAndIsForceReleasedByItsKey() {
		String longKey = this.prefix + "x".repeat(300);
		assertThat(this.there.tryAcquire(longKey, LONG).isAcquired()).isTrue();
		assertThat(this.here.tryAcquire(this.prefix + "short", LONG).isAcquired()).isTrue();

		assertThat(holders(this.here).find("", 1000).holders()).extracting(LockHolder::key)
			.contains(this.prefix + "short")
			.noneMatch((key) -> key.contains(HashedKeys.MARKER) || key.equals(longKey));
		LockHolders.Listing two = holders(this.here).find("", 2);
		assertThat(two.holders()).as("the hashed key counted by the store, then left out").hasSize(1);
		assertThat(two.truncated()).as("the store stopped at the limit").isTrue();
		assertThat(holders(this.here).find("", 3).truncated()).isFalse();
		assertThat(holders(this.here).forceRelease(longKey, "0".repeat(LockHolders.FINGERPRINT_LENGTH)))
			.as("by another owner's fingerprint")
			.isFalse();
		assertThat(holders(this.here).forceRelease(longKey)).isTrue();
		assertThat(this.here.tryAcquire(longKey, LONG).isAcquired()).as("the long key is free").isTrue();
	}

	@Test
	void storesThatCannotListHoldersHaveNoView() {
		LockStore plain = new LockStore() {

			@Override
			public AcquireReply tryAcquire(String key, String token, Duration ttl) {
				return LockHoldersTests.this.store.tryAcquire(key, token, ttl);
			}

			@Override
			public boolean release(String key, String token) {
				return LockHoldersTests.this.store.release(key, token);
			}

			@Override
			public boolean extend(String key, String token, Duration ttl) {
				return LockHoldersTests.this.store.extend(key, token, ttl);
			}

			@Override
			public Duration timeToExpiry(String key) {
				return LockHoldersTests.this.store.timeToExpiry(key);
			}

		};
		LockTemplate template = new LockTemplate(plain);
		this.instances.add(template);
		assertThat(LockHolders.of(template)).isEmpty();
	}

	private static LockHolders holders(LockTemplate template) {
		return LockHolders.of(template).orElseThrow();
	}

	private LockTemplate newInstance() {
		LockTemplate template = new LockTemplate(this.store);
		this.instances.add(template);
		return template;
	}

}
