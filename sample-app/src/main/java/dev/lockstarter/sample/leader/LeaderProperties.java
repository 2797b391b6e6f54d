package dev.lockstarter.sample.leader;

import java.util.UUID;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the leader election.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("sample.leader")
public class LeaderProperties {

	/**
	 * Whether to take part in the election of one leader among the instances. Needs a
	 * lock store shared by the instances, such as the 'redis' profile's.
	 */
	private boolean enabled;

	/**
	 * Name of this instance in the leadership log lines and in GET /api/leader. Defaults
	 * to a random name.
	 */
	private String instance = UUID.randomUUID().toString().substring(0, 8);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getInstance() {
		return this.instance;
	}

	public void setInstance(String instance) {
		this.instance = instance;
	}

}
