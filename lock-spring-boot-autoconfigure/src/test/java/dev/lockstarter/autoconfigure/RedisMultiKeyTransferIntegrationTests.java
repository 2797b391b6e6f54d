package dev.lockstarter.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.redis.RedisServerExtension;

/**
 * {@code @ExclusiveRequest(eachKey = true)} transfers between shared accounts by two
 * application instances on one real Redis server, where every multi-key acquisition is
 * one atomic script (see {@link MultiKeyTransfers}).
 */
class RedisMultiKeyTransferIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void concurrentTransfersOverSharedAccountsNeverOverlapNorDeadlockAndKeepEveryCent() throws Exception {
		MultiKeyTransfers.runAndCheck("lock.store=redis", "spring.data.redis.host=" + redis.host(),
				"spring.data.redis.port=" + redis.port());
	}

}
