package dev.lockstarter.sample;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the sample application.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("sample")
public class SampleProperties {

	/**
	 * Where the application keeps its users. Set to 'redis' by the 'redis' profile, so that
	 * several instances share them.
	 */
	private DataStore store = DataStore.MEMORY;

	private final PointsService pointsService = new PointsService();

	public DataStore getStore() {
		return this.store;
	}

	public void setStore(DataStore store) {
		this.store = store;
	}

	public PointsService getPointsService() {
		return this.pointsService;
	}

	/**
	 * Where the application keeps its users.
	 */
	public enum DataStore {

		/**
		 * In this process's memory: lost on restart, not shared between instances.
		 */
		MEMORY,

		/**
		 * In Redis, reached through 'spring.data.redis.*', shared by every instance.
		 */
		REDIS

	}

	/**
	 * Settings of the simulated external points service.
	 */
	public static class PointsService {

		/**
		 * Time each call to the simulated external points service takes.
		 */
		private Duration latency = Duration.ofMillis(300);

		public Duration getLatency() {
			return this.latency;
		}

		public void setLatency(Duration latency) {
			this.latency = latency;
		}

	}

}
