package dev.lockstarter.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.redis.RedisClusterExtension;

/**
 * {@code @ExclusiveRequest(eachKey = true)} transfers between shared accounts by two
 * application instances on a real Redis Cluster of three masters, where the accounts'
 * locks live in different hash slots and are taken one by one in order, with rollback
 * (see {@link MultiKeyTransfers}).
 */
class RedisClusterMultiKeyTransferIntegrationTests {

	@RegisterExtension
	static final RedisClusterExtension cluster = new RedisClusterExtension();

	@Test
	void concurrentTransfersOverSharedAccountsNeverOverlapNorDeadlockAndKeepEveryCent() throws Exception {
		MultiKeyTransfers.runAndCheck("lock.store=redis",
				"spring.data.redis.cluster.nodes=" + String.join(",", cluster.nodeAddresses()),
				"spring.data.redis.timeout=5s");
	}

}
