package dev.lockstarter.store.zookeeper;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.zookeeper.LockNodeWrites.Kind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How {@link LockNodeWrites} conditions a write on the data version a read found.
 */
class LockNodeWritesTests {

	@Test
	void aWriteIsASetDataAtTheVersionReadWhereverItLeavesANodeAtAnotherVersionThanMinusOne() {
		for (int version : new int[] { 0, 1, 7, Integer.MAX_VALUE - 1, Integer.MAX_VALUE, Integer.MIN_VALUE,
				Integer.MIN_VALUE + 1, -4, -3 }) {
			assertThat(LockNodeWrites.kind(version)).as("at version %d", version).isEqualTo(Kind.SET_DATA);
		}
	}

	@Test
	void aWriteThatWouldLeaveANodeAtMinusOneRestartsItInstead() {
		assertThat(LockNodeWrites.kind(-2)).isEqualTo(Kind.RESTART);
	}

	@Test
	void aWriteOfANodeAtMinusOneIsGuardedByTheParentsVersion() {
		assertThat(LockNodeWrites.kind(-1)).isEqualTo(Kind.GUARDED);
	}

}
