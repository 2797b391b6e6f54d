package dev.lockstarter.autoconfigure;

import java.net.URI;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Configuration properties of the DynamoDB lock store, used with
 * {@code lock.store=dynamodb}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("lock.dynamodb")
public class DynamoDbLockStoreProperties implements InitializingBean {

	/**
	 * Name of the DynamoDB table that holds the locks. Its partition key must be a string
	 * named "pk".
	 */
	private String table = "locks";

	/**
	 * DynamoDB endpoint, such as http://localhost:8000 for DynamoDB Local. Defaults to
	 * the AWS SDK's endpoint for the region. Ignored when the application defines a
	 * DynamoDbClient bean.
	 */
	private @Nullable URI endpoint;

	/**
	 * AWS region of the table. Defaults to the AWS SDK's region provider chain, such as
	 * the AWS_REGION environment variable. Ignored when the application defines a
	 * DynamoDbClient bean.
	 */
	private @Nullable String region;

	/**
	 * Longest time a lock operation waits for DynamoDB, retries included, before it
	 * fails. Ignored when the application defines a DynamoDbClient bean.
	 */
	private Duration timeout = Duration.ofSeconds(2);

	/**
	 * Whether to create the table at startup when it does not exist, with on-demand
	 * capacity and Time to Live. Meant for development.
	 */
	private boolean createTable;

	/**
	 * How a lock's expiry is decided: observed (a contender takes a lock over once it
	 * stayed unchanged for its time-to-live on the contender's monotonic clock; no wall
	 * clock decides) or client-clock (the expiry time written on the clients' wall
	 * clocks, which must then agree). Every instance using one table must use the same.
	 */
	private Expiry expiry = Expiry.OBSERVED;

	public String getTable() {
		return this.table;
	}

	public void setTable(String table) {
		this.table = table;
	}

	public @Nullable URI getEndpoint() {
		return this.endpoint;
	}

	public void setEndpoint(@Nullable URI endpoint) {
		this.endpoint = endpoint;
	}

	public @Nullable String getRegion() {
		return this.region;
	}

	public void setRegion(@Nullable String region) {
		this.region = region;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public boolean isCreateTable() {
		return this.createTable;
	}

	public void setCreateTable(boolean createTable) {
		this.createTable = createTable;
	}

	public Expiry getExpiry() {
		return this.expiry;
	}

	public void setExpiry(Expiry expiry) {
		this.expiry = expiry;
	}

	@Override
	public void afterPropertiesSet() {
		if (!this.table.matches("[a-zA-Z0-9_.-]{3,255}")) {
			throw new InvalidConfigurationPropertyValueException("lock.dynamodb.table", this.table,
					"A DynamoDB table name has 3 to 255 characters among a-z, A-Z, 0-9, '_', '-' and '.'.");
		}
		URI endpoint = this.endpoint;
		if (endpoint != null && (!("http".equals(endpoint.getScheme()) || "https".equals(endpoint.getScheme()))
				|| endpoint.getHost() == null)) {
			throw new InvalidConfigurationPropertyValueException("lock.dynamodb.endpoint", endpoint,
					"The endpoint must be an http or https URL, such as http://localhost:8000.");
		}
		if (this.region != null && this.region.isBlank()) {
			throw new InvalidConfigurationPropertyValueException("lock.dynamodb.region", this.region,
					"The region must not be blank; leave it unset to use the AWS SDK's region provider chain.");
		}
		PropertyChecks.positive("lock.dynamodb.timeout", this.timeout, "The timeout must be positive.");
	}

	/**
	 * How the DynamoDB store decides that a lock's time-to-live has passed.
	 */
	public enum Expiry {

		/**
		 * A contender takes a lock over once it saw it unchanged for its time-to-live, on
		 * its own monotonic clock: no wall clock decides.
		 */
		OBSERVED,

		/**
		 * The expiry time is written and compared on the clients' wall clocks: mutual
		 * exclusion depends on them agreeing.
		 */
		CLIENT_CLOCK

	}

}
