package dev.lockstarter.sample.leader;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Tells whether this instance is the leader: {@code GET /api/leader}.
 *
 * @since 0.1.0
 */
@RestController
@ConditionalOnBooleanProperty("sample.leader.enabled")
public class LeaderController {

	private final LockRegistryLeaderInitiator initiator;

	private final LeaderProperties properties;

	/**
	 * Create a new controller.
	 * @param initiator the leader initiator of this instance
	 * @param properties the leader election's properties
	 */
	public LeaderController(LockRegistryLeaderInitiator initiator, LeaderProperties properties) {
		this.initiator = initiator;
		this.properties = properties;
	}

	/**
	 * Return this instance's name and whether it holds the leader's lock now.
	 * @return the leadership of this instance
	 */
	@GetMapping("/api/leader")
	public Leadership leader() {
		return new Leadership(this.properties.getInstance(), this.initiator.getContext().isLeader());
	}

	/**
	 * The leadership of one instance.
	 *
	 * @param instance the instance's name ({@code sample.leader.instance})
	 * @param leader whether the instance is the leader
	 */
	public record Leadership(String instance, boolean leader) {

	}

}
