package dev.lockstarter.test.contract;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockOptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fencing tokens of reactive leases: a reactive lease comes with its token, so that
 * reading it makes no store call and never blocks. A store that declares no fencing
 * tokens must answer none.
 */
interface ReactiveFencingContract extends ReactiveTemplateContract {

	/**
	 * The token is still there after the release, when drawing one would fail, and the
	 * next owner's is greater.
	 */
	@Test
	default void aReactiveLeaseComesWithItsFencingToken() {
		String key = uniqueKey("fenced");
		Lease first = heldThenReleased(key);
		Lease second = heldThenReleased(key);
		long firstToken = first.fencingToken();
		long secondToken = second.fencingToken();
		if (declaredFencing().check("fencing tokens of two released reactive leases of one key",
				List.of(firstToken, secondToken))) {
			assertThat(secondToken).isGreaterThan(firstToken);
		}
	}

	private Lease heldThenReleased(String key) {
		Lease lease = reactiveLocks().acquire(key, LockOptions.ttl(LONG_TTL))
			.flatMap((held) -> reactiveLocks().release(held).filter(Boolean::booleanValue).map((released) -> held))
			.block(BLOCK);
		if (lease == null) {
			throw new AssertionError("Not acquired and released");
		}
		return lease;
	}

}
