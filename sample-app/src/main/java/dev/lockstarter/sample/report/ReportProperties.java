package dev.lockstarter.sample.report;

import java.util.UUID;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the scheduled report.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("sample.report")
public class ReportProperties {

	/**
	 * Whether to send the scheduled report. Needs the 'redis' profile, where the report
	 * records its runs.
	 */
	private boolean enabled;

	/**
	 * Cron expression of the report's schedule; every second by default, so that the demo
	 * shows several ticks.
	 */
	private String cron = "* * * * * *";

	/**
	 * Name of this instance in the record of which instance ran each tick. Defaults to a
	 * random name.
	 */
	private String instance = UUID.randomUUID().toString().substring(0, 8);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getCron() {
		return this.cron;
	}

	public void setCron(String cron) {
		this.cron = cron;
	}

	public String getInstance() {
		return this.instance;
	}

	public void setInstance(String instance) {
		this.instance = instance;
	}

}
