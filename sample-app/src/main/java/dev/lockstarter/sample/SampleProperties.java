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
	 * Where the application keeps its users and payments. Set to 'redis' by the 'redis'
	 * profile, so that several instances share them.
	 */
	private DataStore store = DataStore.MEMORY;

	private final PointsService pointsService = new PointsService();

	private final Counter counter = new Counter();

	private final Payments payments = new Payments();

	private final Sum sum = new Sum();

	private final Form form = new Form();

	public DataStore getStore() {
		return this.store;
	}

	public void setStore(DataStore store) {
		this.store = store;
	}

	public PointsService getPointsService() {
		return this.pointsService;
	}

	public Counter getCounter() {
		return this.counter;
	}

	public Payments getPayments() {
		return this.payments;
	}

	public Sum getSum() {
		return this.sum;
	}

	public Form getForm() {
		return this.form;
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
		REDIS,

		/**
		 * Users and payments in the database of 'spring.datasource.*', shared by every
		 * instance; counters and sum calls in this process's memory.
		 */
		JDBC

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

	/**
	 * Settings of the counters.
	 */
	public static class Counter {

		/**
		 * Pause between reading a counter and writing it back, standing for work done in
		 * between.
		 */
		private Duration delay = Duration.ofMillis(20);

		/**
		 * How long an increment waits for the counter's lock.
		 */
		private Duration waitTime = Duration.ofSeconds(10);

		public Duration getDelay() {
			return this.delay;
		}

		public void setDelay(Duration delay) {
			this.delay = delay;
		}

		public Duration getWaitTime() {
			return this.waitTime;
		}

		public void setWaitTime(Duration waitTime) {
			this.waitTime = waitTime;
		}

	}

	/**
	 * Settings of the payments.
	 */
	public static class Payments {

		/**
		 * Time each payment takes, standing for the call to a payment provider.
		 */
		private Duration latency = Duration.ofMillis(300);

		public Duration getLatency() {
			return this.latency;
		}

		public void setLatency(Duration latency) {
			this.latency = latency;
		}

	}

	/**
	 * Settings of the demo page's guarded form.
	 */
	public static class Form {

		/**
		 * Time a form's token stays locked after a submission started, so that a second
		 * click of the same form within it is rejected. Read by
		 * FormSubmissionService's @ExclusiveRequest.
		 */
		private Duration holdAtLeast = Duration.ofSeconds(2);

		public Duration getHoldAtLeast() {
			return this.holdAtLeast;
		}

		public void setHoldAtLeast(Duration holdAtLeast) {
			this.holdAtLeast = holdAtLeast;
		}

	}

	/**
	 * Settings of the simulated paid sum API.
	 */
	public static class Sum {

		/**
		 * Time each call to the simulated sum API takes.
		 */
		private Duration latency = Duration.ofSeconds(1);

		public Duration getLatency() {
			return this.latency;
		}

		public void setLatency(Duration latency) {
			this.latency = latency;
		}

	}

}
