package dev.lockstarter.integration;

import java.time.Duration;
import java.util.function.Consumer;

import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * One application instance in a leader election: a store client of its own, a
 * {@link LockTemplate} on it, a {@link LockOperationsLockRegistry} whose locks take the
 * election's time-to-live with renewal, and Spring Integration's own
 * {@link LockRegistryLeaderInitiator} on that registry, with the election's heartbeat and
 * busy wait. The initiator's grants, revocations and failed attempts go to a listener.
 */
final class ElectionMember implements AutoCloseable {

	private final MemberStores.Opened opened;

	private final LockTemplate template;

	private final LockRegistryLeaderInitiator initiator;

	ElectionMember(MemberStores stores, String address, Settings settings, String id, Consumer<String> events) {
		this.opened = stores.open(address);
		this.template = new LockTemplate(this.opened.store());
		LockOperationsLockRegistry registry = new LockOperationsLockRegistry(this.template,
				LockOptions.ttl(settings.ttl()).withName("leader-election"));
		this.initiator = new LockRegistryLeaderInitiator(registry, new DefaultCandidate(id, settings.role()));
		this.initiator.setHeartBeatMillis(settings.heartbeat().toMillis());
		this.initiator.setBusyWaitMillis(settings.busyWait().toMillis());
		this.initiator.setPublishFailedEvents(true);
		this.initiator.setLeaderEventPublisher(new Reporter(events));
	}

	void start() {
		this.initiator.start();
	}

	void yieldLeadership() {
		this.initiator.getContext().yield();
	}

	@Override
	public void close() throws Exception {
		try {
			this.initiator.stop();
			this.template.destroy();
		}
		finally {
			this.opened.resources().close();
		}
	}

	/**
	 * An election's settings, the same for each member.
	 *
	 * @param role the role, and so the key of the lock
	 * @param ttl the time-to-live of the lock
	 * @param heartbeat the initiator's heartbeat, the wait of each of its attempts
	 * @param busyWait how long the initiator waits after a revocation or a yield
	 */
	record Settings(String role, Duration ttl, Duration heartbeat, Duration busyWait) {
	}

	private record Reporter(Consumer<String> events) implements LeaderEventPublisher {

		@Override
		public void publishOnGranted(Object source, Context context, String role) {
			this.events.accept(Leadership.GRANTED);
		}

		@Override
		public void publishOnRevoked(Object source, Context context, String role) {
			this.events.accept(Leadership.REVOKED);
		}

		@Override
		public void publishOnFailedToAcquire(Object source, Context context, String role) {
			this.events.accept(Leadership.FAILED);
		}

	}

}
