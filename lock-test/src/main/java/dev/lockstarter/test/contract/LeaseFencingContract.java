package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStore;

import static dev.lockstarter.test.contract.TemplateUnderTest.LONG_TTL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fencing tokens of leases: they strictly increase from one owner to the next, also
 * after a holder whose lock expired. A store that declares no fencing tokens must answer
 * none.
 */
interface LeaseFencingContract extends TemplateContract {

	@Test
	default void fencingTokensStrictlyIncreaseAcrossOwners() throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("fencing");
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			LockTemplate owner = new LockTemplate(store, fixture.prefix());
			try (Lease lease = owner.acquire(key, Duration.ofSeconds(2))) {
				tokens.add(lease.fencingToken());
			}
		}
		if (!fixture.fencing().check("fencing tokens of 10 successive leases of one key", tokens)) {
			return;
		}
		// An expired holder is followed by a higher token too.
		LockTemplate expiring = new LockTemplate(store, fixture.prefix());
		// Long enough for a slow store: an acquisition confirmed after its local
		// deadline fails
		Lease abandoned = expiring.acquire(key, LockOptions.ttl(Duration.ofMillis(400)).withRenewal(false));
		tokens.add(abandoned.fencingToken());
		LockAttempt next = await("the next owner of " + key + ", once the abandoned lock expired")
			.atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> fixture.locks().tryAcquire(key, LONG_TTL), LockAttempt::isAcquired);
		try (Lease lease = next.lease()) {
			tokens.add(lease.fencingToken());
		}
		assertThat(tokens).allSatisfy((token) -> assertThat(token).isPositive());
		for (int i = 1; i < tokens.size(); i++) {
			assertThat(tokens.get(i)).as("token %d of %s", i, tokens).isGreaterThan(tokens.get(i - 1));
		}
	}

}
