package dev.lockstarter.autoconfigure;

import java.time.Duration;

import io.lettuce.core.SocketOptions;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.lockstarter.autoconfigure.RedisLockStoreConfiguration.LettuceConnectTimeoutCustomizer;
import dev.lockstarter.autoconfigure.RedisLockStoreConfiguration.LettuceReconnectDelayCustomizer;
import dev.lockstarter.store.redis.RedisLockStore;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code lock.redis.*} properties, the customizers of Spring Boot's Lettuce client,
 * and the Redis store's checks of {@code lock.key-prefix}.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisLockStorePropertiesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockAutoConfiguration.class))
		.withPropertyValues("lock.store=redis");

	@Test
	void replicaAcknowledgementsAreOffByDefault(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(RedisLockStore.class);
			RedisLockStoreProperties redis = context.getBean(RedisLockStoreProperties.class);
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
		assertStartupFails("lock.redis.min-replica-acks=-1", "lock.redis.min-replica-acks", "must not be negative");
	}

	@Test
	void nonPositiveReplicaAckTimeoutFailsNamingTheProperty() {
		assertStartupFails("lock.redis.replica-ack-timeout=0s", "lock.redis.replica-ack-timeout", "must be positive");
	}

	@Test
	void replySpinReachesTheStore() {
		this.contextRunner.run((context) -> assertThat(context.getBean(RedisLockStore.class).getReplySpin())
			.isEqualTo(Duration.ofNanos(100_000)));
		this.contextRunner.withPropertyValues("lock.redis.reply-spin=0")
			.run((context) -> assertThat(context.getBean(RedisLockStore.class).getReplySpin()).isZero());
	}

	@Test
	void negativeReplySpinFailsNamingTheProperty() {
		assertStartupFails("lock.redis.reply-spin=-1us", "lock.redis.reply-spin", "must not be negative");
	}

	@Test
	void keyPrefixWithABraceFailsNamingTheProperty() {
		assertStartupFails("lock.key-prefix=app{1}:", "lock.key-prefix", "must not contain '{' or '}'");
	}

	@Test
	void keyPrefixWithABraceIsAllowedForAnotherStore() {
		this.contextRunner.withPropertyValues("lock.key-prefix=app{1}:", "lock.store=memory")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void timeoutIsTwoSecondsByDefault(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(RedisLockStoreProperties.class).getTimeout()).hasSeconds(2);
			assertThat(context.getBean(RedisLockStore.class).getTimeout()).hasSeconds(2);
			assertThat(output)
				.contains("a lock operation fails when Redis does not answer within PT2S " + "(lock.redis.timeout)");
		});
	}

	@Test
	void timeoutIsBoundAndSetOnTheStore(CapturedOutput output) {
		this.contextRunner.withPropertyValues("lock.redis.timeout=750ms").run((context) -> {
			assertThat(context.getBean(RedisLockStore.class).getTimeout()).isEqualTo(Duration.ofMillis(750));
			assertThat(output).contains("within PT0.75S (lock.redis.timeout)");
		});
	}

	@Test
	void timeoutDoesNotDependOnSpringDataRedisTimeout() {
		this.contextRunner.withPropertyValues("spring.data.redis.timeout=30s")
			.run((context) -> assertThat(context.getBean(RedisLockStore.class).getTimeout()).hasSeconds(2));
	}

	@Test
	void zeroTimeoutFailsNamingTheProperty() {
		assertStartupFails("lock.redis.timeout=0s", "lock.redis.timeout", "must be positive");
	}

	@Test
	void negativeTimeoutFailsNamingTheProperty() {
		assertStartupFails("lock.redis.timeout=-1s", "lock.redis.timeout", "must be positive");
	}

	@Test
	void lettuceConnectTimeoutIsLoweredToTheTimeoutByDefault(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LettuceConnectTimeoutCustomizer.class);
			assertThat(connectTimeout(context)).hasSeconds(2);
			assertThat(output).containsOnlyOnce("Lettuce's connect timeout lowered from PT10S to PT2S");
		});
	}

	@Test
	void lettuceConnectTimeoutFollowsTheTimeout() {
		this.contextRunner.withPropertyValues("lock.redis.timeout=1500ms")
			.run((context) -> assertThat(connectTimeout(context)).isEqualTo(Duration.ofMillis(1500)));
	}

	@Test
	void lettuceConnectTimeoutSetByTheApplicationIsKept(CapturedOutput output) {
		this.contextRunner.withPropertyValues("spring.data.redis.connect-timeout=7s").run((context) -> {
			assertThat(context).doesNotHaveBean(LettuceConnectTimeoutCustomizer.class);
			assertThat(connectTimeout(context)).hasSeconds(7);
			assertThat(output).doesNotContain("connect timeout lowered");
		});
	}

	@Test
	void lettuceConnectTimeoutIsLeftAloneWhenSwitchedOff() {
		this.contextRunner.withPropertyValues("lock.redis.lettuce.limit-connect-timeout=false").run((context) -> {
			assertThat(context).doesNotHaveBean(LettuceConnectTimeoutCustomizer.class);
			assertThat(connectTimeout(context)).isEqualTo(SocketOptions.DEFAULT_CONNECT_TIMEOUT_DURATION);
		});
	}

	@Test
	void shorterConnectTimeoutAndOtherSocketOptionsOfAnotherCustomizerAreKept() {
		this.contextRunner.withUserConfiguration(KeepAliveSocketOptions.class).run((context) -> {
			assertThat(context).hasSingleBean(LettuceConnectTimeoutCustomizer.class);
			SocketOptions socket = socketOptions(context);
			assertThat(socket.getConnectTimeout()).isEqualTo(Duration.ofMillis(500));
			assertThat(socket.isKeepAlive()).isTrue();
		});
	}

	@Test
	void lettuceReconnectDelayIsCappedByDefault(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LettuceReconnectDelayCustomizer.class);
			ClientResources resources = context.getBean(ClientResources.class);
			assertThat(resources.reconnectDelay().createDelay(1)).isLessThan(Duration.ofMillis(10));
			assertThat(resources.reconnectDelay().createDelay(20)).hasMillis(2000);
			assertThat(output).containsOnlyOnce("Lettuce's delay between reconnection attempts capped at 2000 ms");
		});
	}

	@Test
	void lettuceReconnectDelayIsLeftAloneWhenSwitchedOff() {
		this.contextRunner.withPropertyValues("lock.redis.lettuce.limit-reconnect-delay=false").run((context) -> {
			assertThat(context).doesNotHaveBean(LettuceReconnectDelayCustomizer.class);
			assertThat(context.getBean(ClientResources.class).reconnectDelay().createDelay(20)).hasSeconds(30);
		});
	}

	@Test
	void lettuceIsLeftAloneWhenAnotherLockStoreIsUsed() {
		this.contextRunner.withPropertyValues("lock.store=memory").run((context) -> {
			assertThat(context).doesNotHaveBean(LettuceConnectTimeoutCustomizer.class);
			assertThat(context).doesNotHaveBean(LettuceReconnectDelayCustomizer.class);
			assertThat(connectTimeout(context)).isEqualTo(SocketOptions.DEFAULT_CONNECT_TIMEOUT_DURATION);
			assertThat(context.getBean(ClientResources.class).reconnectDelay().createDelay(20)).hasSeconds(30);
		});
	}

	private static Duration connectTimeout(AssertableApplicationContext context) {
		return socketOptions(context).getConnectTimeout();
	}

	private static SocketOptions socketOptions(AssertableApplicationContext context) {
		return context.getBean(LettuceConnectionFactory.class)
			.getClientConfiguration()
			.getClientOptions()
			.orElseThrow()
			.getSocketOptions();
	}

	@Configuration(proxyBeanMethods = false)
	static class KeepAliveSocketOptions {

		@Bean
		LettuceClientOptionsBuilderCustomizer keepAliveSocketOptions() {
			return (builder) -> builder
				.socketOptions(SocketOptions.builder().keepAlive(true).connectTimeout(Duration.ofMillis(500)).build());
		}

	}

	private void assertStartupFails(String property, String named, String message) {
		this.contextRunner.withPropertyValues(property)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining(named)
				.hasMessageContaining(message));
	}

}
