package dev.lockstarter.sample.leader;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Runs Spring Integration's {@link LockRegistryLeaderInitiator}, unchanged, on the
 * auto-configured {@link LockRegistry} (the starter's, over the lock store), when
 * {@code sample.leader.enabled} is {@code true}: every instance competes for the lock of
 * the role {@value #ROLE}, and the one that holds it is the leader until it stops or its
 * lock expires.
 * <p>
 * The initiator tries the lock every heartbeat (500 ms); the leader's attempt is a
 * re-entry that extends the lock in the store. When the leader dies without releasing it,
 * another instance takes it once it expires, after {@code lock.ttl} at most.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("sample.leader.enabled")
@EnableConfigurationProperties(LeaderProperties.class)
public class LeaderConfiguration {

	/** The role the instances compete for, the name of its lock. */
	public static final String ROLE = "sample-leader";

	@Bean
	LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> lockRegistry, LeaderProperties properties) {
		return new LockRegistryLeaderInitiator(lockRegistry, new DefaultCandidate(properties.getInstance(), ROLE));
	}

	@Bean
	LeadershipLog leadershipLog(LeaderProperties properties) {
		return new LeadershipLog(properties.getInstance());
	}

}
