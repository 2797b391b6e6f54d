package dev.lockstarter.sample.leader;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;

/**
 * Logs at INFO, in one line each, the leadership events that the
 * {@code LockRegistryLeaderInitiator} publishes: granted when this instance took the
 * role's lock, revoked when it lost or released it.
 */
class LeadershipLog {

	private static final Log logger = LogFactory.getLog(LeadershipLog.class);

	private final String instance;

	LeadershipLog(String instance) {
		this.instance = instance;
	}

	@EventListener
	void granted(OnGrantedEvent event) {
		logger.info("Leadership of '" + event.getRole() + "' granted to instance " + this.instance);
	}

	@EventListener
	void revoked(OnRevokedEvent event) {
		logger.info("Leadership of '" + event.getRole() + "' revoked from instance " + this.instance);
	}

}
