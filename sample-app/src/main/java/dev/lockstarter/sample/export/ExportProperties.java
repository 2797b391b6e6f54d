package dev.lockstarter.sample.export;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the report exports.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("sample.exports")
public class ExportProperties {

	/**
	 * Whether the exports endpoint runs. The profiles whose lock store keeps mutexes only
	 * (memcached, dynamodb) turn it off: its permits would fail startup there.
	 */
	private boolean enabled = true;

	/**
	 * How long one export takes.
	 */
	private Duration latency = Duration.ofSeconds(2);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getLatency() {
		return this.latency;
	}

	public void setLatency(Duration latency) {
		this.latency = latency;
	}

}
