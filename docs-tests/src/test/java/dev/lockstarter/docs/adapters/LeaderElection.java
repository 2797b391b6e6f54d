package dev.lockstarter.docs.adapters;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Integration's leader election on the auto-configured {@code LockRegistry}.
 */
@Configuration(proxyBeanMethods = false)
public class LeaderElection {

	private static final Log logger = LogFactory.getLog(LeaderElection.class);

	// tag::leader[]
	@Bean
	LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> lockRegistry) {
		return new LockRegistryLeaderInitiator(lockRegistry, new DefaultCandidate("billing-1", "billing-leader"));
	}

	@EventListener
	void granted(OnGrantedEvent event) {
		logger.info("Leading " + event.getRole());
	}

	@EventListener
	void revoked(OnRevokedEvent event) {
		logger.info("No longer leading " + event.getRole());
	}
	// end::leader[]

}
