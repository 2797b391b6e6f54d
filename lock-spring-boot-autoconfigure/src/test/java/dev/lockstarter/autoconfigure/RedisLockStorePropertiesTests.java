package dev.lockstarter.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.lockstarter.store.redis.RedisLockStore;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code lock.redis.*} properties and the Redis store's checks of
 * {@code lock.key-prefix}.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisLockStorePropertiesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockAutoConfiguration.class));

	@Test
	void replicaAcknowledgementsAreOffByDefault(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(RedisLockStore.class);
			LockProperties.Redis redis = context.getBean(LockProperties.class).getRedis();
			assertThat(redis.getMinReplicaAcks()).isZero();
			assertThat(redis.getReplicaAckTimeout()).hasSeconds(1);
			assertThat(output).contains("Using the Redis lock store").doesNotContain("replica acknowledgement");
		});
	}

	@Test
	void replicaAcknowledgementsAreConfiguredOnTheStore(CapturedOutput output) {
		this.contextRunner.withPropertyValues("lock.redis.min-replica-acks=2", "lock.redis.replica-ack-timeout=500ms")
			.run((context) -> {
				assertThat(context).hasSingleBean(RedisLockStore.class);
				assertThat(output).contains("each acquisition waits up to PT0.5S for 2 replica acknowledgement(s)");
			});
	}

	@Test
	void negativeMinReplicaAcksFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("lock.redis.min-replica-acks=-1")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("lock.redis.min-replica-acks")
				.hasMessageContaining("must not be negative"));
	}

	@Test
	void nonPositiveReplicaAckTimeoutFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("lock.redis.replica-ack-timeout=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("lock.redis.replica-ack-timeout")
				.hasMessageContaining("must be positive"));
	}

	@Test
	void keyPrefixWithABraceFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("lock.key-prefix=app{1}:")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("lock.key-prefix")
				.hasMessageContaining("must not contain '{' or '}'"));
	}

	@Test
	void keyPrefixWithABraceIsAllowedForAnotherStore() {
		this.contextRunner.withPropertyValues("lock.key-prefix=app{1}:", "lock.store=memory")
			.run((context) -> assertThat(context).hasNotFailed());
	}

}
