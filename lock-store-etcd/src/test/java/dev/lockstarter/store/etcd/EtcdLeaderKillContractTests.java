package dev.lockstarter.store.etcd;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import io.etcd.jetcd.Client;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.contract.ExclusionChecker;
import dev.lockstarter.test.contract.LockStoreContractTests;
import dev.lockstarter.test.etcd.EtcdClusterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockStoreContractTests} for {@link EtcdLockStore} on a three-member cluster
 * whose leader is killed ({@code kill -9}) before every tenth test (the next one that
 * runs, when the tenth is a shared-lock test this store skips): every guarantee holds
 * across the failovers, on the two members left and on the restarted member. Calls made
 * during the election itself are answered, or fail with a {@link LockStoreException},
 * within the timeout.
 */
class EtcdLeaderKillContractTests extends LockStoreContractTests {

	/** The parts of the contract that this store, without shared locks, skips. */
	private static final Set<String> SHARED_LOCK_CONTRACTS = Set.of("SharedLockStoreContract", "PermitStoreContract",
			"WriterPreferenceContract");

	@RegisterExtension
	@Order(1)
	static final EtcdClusterExtension etcd = new EtcdClusterExtension();

	@RegisterExtension
	@Order(2)
	static final LeaderKillingExtension leaderKiller = new LeaderKillingExtension(etcd, 10, 5,
			(test) -> !SHARED_LOCK_CONTRACTS.contains(test.getDeclaringClass().getSimpleName()));

	private static final Duration TTL = Duration.ofSeconds(30);

	private static final Log logger = LogFactory.getLog(EtcdLeaderKillContractTests.class);

	private static Client client;

	private static EtcdLockStore sharedStore;

	@BeforeAll
	static void createSharedStore() {
		client = EtcdTestClients.client(etcd.endpoints());
		sharedStore = new EtcdLockStore(client, EtcdTestClients.TIMEOUT);
	}

	@AfterAll
	static void closeClient() {
		if (sharedStore != null) {
			sharedStore.close();
		}
		if (client != null) {
			client.close();
		}
	}

	@Override
	protected LockStore createStore() {
		return sharedStore;
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

	@Test
	void callsDuringAnElectionSucceedOrFailWithinTheTimeout() {
		// Three members again, if the leader killer struck before this test
		etcd.server().heal();
		String key = uniqueKey("election");
		String owner = uniqueToken();
		assertThat(sharedStore.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		etcd.server().leader().kill();
		List<TimedCall> calls = List.of(TimedCall.of("acquire", () -> sharedStore.tryAcquire(key, uniqueToken(), TTL)),
				TimedCall.of("extend", () -> sharedStore.extend(key, owner, TTL)),
				TimedCall.of("put a result", () -> sharedStore.putResult(key, owner, new byte[] { 1 }, TTL)),
				TimedCall.of("read the time to expiry", () -> sharedStore.timeToExpiry(key)),
				TimedCall.of("read the result", () -> sharedStore.getResult(key)),
				TimedCall.of("release", () -> sharedStore.release(key, owner)));
		Duration bound = EtcdTestClients.TIMEOUT.plusSeconds(1);
		for (TimedCall call : calls) {
			assertThat(call.took()).as("time to %s (%s)", call.operation(), call).isLessThan(bound);
		}
		logger.info("Calls during an election: " + calls);
		etcd.server().awaitLeader(Duration.ofSeconds(10));
		String after = uniqueKey("after-election");
		String afterOwner = uniqueToken();
		assertThat(sharedStore.tryAcquire(after, afterOwner, TTL).isAcquired()).isTrue();
		assertThat(sharedStore.release(after, afterOwner)).isTrue();
	}

	@Override
	protected ExclusionChecker exclusionChecker() {
		return new ExclusionChecker().threads(8).attemptsPerThread(30);
	}

}
