package dev.lockstarter.autoconfigure.adapter;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.test.fault.FaultProxy;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spring Integration's leader election on the auto-configured registry, over a real Redis
 * behind a {@link FaultProxy}: a leader that loses the store gives up its leadership
 * within the store's timeout, and is elected again once the store answers.
 */
class LeaderElectionRedisOutageTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private FaultProxy proxy;

	@BeforeEach
	void startProxy() {
		redis.server().command("FLUSHALL");
		this.proxy = FaultProxy.start(redis.host(), redis.port());
	}

	@AfterEach
	void closeProxy() {
		this.proxy.close();
	}

	@Test
	void leaderThatLosesTheStoreIsRevokedWithinTheTimeoutAndElectedAgainOnceItHeals() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockAutoConfiguration.class,
					LockRegistryAutoConfiguration.class))
			.withUserConfiguration(Leader.class)
			.withPropertyValues("spring.data.redis.host=" + this.proxy.host(),
					"spring.data.redis.port=" + this.proxy.port(), "lock.store=redis", "lock.ttl=3s",
					"lock.redis.timeout=1s")
			.run((context) -> {
				List<AbstractLeaderEvent> events = context.getBean(Leader.class).events;
				await("leadership granted").atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(20))
					.until(() -> events.size() == 1);
				assertThat(events.get(0)).isInstanceOf(OnGrantedEvent.class);
				this.proxy.blackhole();
				long blackholedAt = System.nanoTime();
				// A heartbeat's extension and the release that follows it each fail
				// after lock.redis.timeout; the initiator then revokes leadership
				await("leadership revoked").atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(20))
					.until(() -> events.size() == 2);
				assertThat(events.get(1)).isInstanceOf(OnRevokedEvent.class);
				assertThat(Duration.ofNanos(System.nanoTime() - blackholedAt)).isLessThan(Duration.ofSeconds(8));
				this.proxy.heal();
				await("leadership granted again").atMost(Duration.ofSeconds(20))
					.pollInterval(Duration.ofMillis(20))
					.until(() -> events.size() == 3);
				assertThat(events.get(2)).isInstanceOf(OnGrantedEvent.class);
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class Leader implements ApplicationListener<AbstractLeaderEvent> {

		final List<AbstractLeaderEvent> events = new CopyOnWriteArrayList<>();

		@Bean
		LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> lockRegistry) {
			return new LockRegistryLeaderInitiator(lockRegistry, new DefaultCandidate("one", "outage-leader"));
		}

		@Override
		public void onApplicationEvent(AbstractLeaderEvent event) {
			this.events.add(event);
		}

	}

}
