package dev.lockstarter.integration;

import java.time.Duration;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@link LeaderElectionPauseTests} on the {@link RedisLockStore}, against a real Redis
 * server; each member has a Lettuce connection factory of its own.
 */
class RedisLeaderElectionPauseTests extends LeaderElectionPauseTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Override
	protected Class<? extends MemberStores> memberStores() {
		return Stores.class;
	}

	@Override
	protected String address() {
		return redis.host() + ":" + redis.port();
	}

	static final class Stores implements MemberStores {

		@Override
		public Opened open(String address) {
			int colon = address.lastIndexOf(':');
			LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(address.substring(0, colon),
							Integer.parseInt(address.substring(colon + 1))),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
			connectionFactory.afterPropertiesSet();
			connectionFactory.start();
			RedisLockStore store = new RedisLockStore(connectionFactory);
			return new Opened(store, () -> {
				store.destroy();
				connectionFactory.destroy();
			});
		}

	}

}
