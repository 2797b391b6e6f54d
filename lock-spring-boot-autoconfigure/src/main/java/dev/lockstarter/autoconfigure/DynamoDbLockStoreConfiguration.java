package dev.lockstarter.autoconfigure;

import java.net.URI;
import java.time.Clock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

import dev.lockstarter.autoconfigure.LockProperties.Store;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.dynamodb.DynamoDbExpiry;
import dev.lockstarter.store.dynamodb.DynamoDbLockStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The DynamoDB lock store, selected with {@code lock.store=dynamodb}: a
 * {@link DynamoDbLockStore} on the application's {@link DynamoDbClient} bean if there is
 * one, and otherwise on a client of its own built from {@code lock.dynamodb.*} and the
 * AWS SDK's usual settings; or a startup failure that names the missing module.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "lock.store", havingValue = "dynamodb")
@ConditionalOnMissingBean(LockStore.class)
class DynamoDbLockStoreConfiguration {

	private static final Log logger = LogFactory.getLog(DynamoDbLockStoreConfiguration.class);

	static final String STORE_CLASS = "dev.lockstarter.store.dynamodb.DynamoDbLockStore";

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = STORE_CLASS)
	static class StoreAvailable {

		/**
		 * The lock store's own client, when the application has none: not a candidate for
		 * injection by type, so that it never stands in for an application client.
		 */
		@Bean(destroyMethod = "close", defaultCandidate = false)
		@ConditionalOnMissingBean(DynamoDbClient.class)
		DynamoDbClient lockDynamoDbClient(DynamoDbLockStoreProperties dynamodb) {
			DynamoDbClientBuilder builder = DynamoDbClient.builder()
				.overrideConfiguration((config) -> config.apiCallTimeout(dynamodb.getTimeout()));
			URI endpoint = dynamodb.getEndpoint();
			if (endpoint != null) {
				builder.endpointOverride(endpoint);
			}
			String region = dynamodb.getRegion();
			if (region != null) {
				builder.region(Region.of(region));
			}
			try {
				return builder.build();
			}
			catch (SdkClientException ex) {
				if (region == null && String.valueOf(ex.getMessage()).contains("region")) {
					throw new InvalidConfigurationPropertyValueException("lock.dynamodb.region", null,
							"No AWS region is configured. Set lock.dynamodb.region, the AWS_REGION environment "
									+ "variable, or a region in the AWS profile.");
				}
				throw ex;
			}
		}

		@Bean
		DynamoDbLockStore dynamoDbLockStore(DynamoDbLockStoreProperties dynamodb,
				@Qualifier("lockDynamoDbClient") ObjectProvider<DynamoDbClient> lockClient,
				ObjectProvider<DynamoDbClient> applicationClient) {
			DynamoDbClient client = lockClient.getIfAvailable();
			String source;
			if (client != null) {
				source = "its own client (" + describe(dynamodb) + ")";
			}
			else {
				client = applicationClient.getObject();
				source = "the application's DynamoDbClient";
				if (dynamodb.getEndpoint() != null || dynamodb.getRegion() != null) {
					logger.warn("lock.dynamodb.endpoint and lock.dynamodb.region are ignored: the DynamoDB lock store "
							+ "uses the application's DynamoDbClient bean");
				}
			}
			boolean clientClock = dynamodb.getExpiry() == DynamoDbLockStoreProperties.Expiry.CLIENT_CLOCK;
			DynamoDbLockStore store = new DynamoDbLockStore(client, dynamodb.getTable(), Clock.systemUTC(),
					clientClock ? DynamoDbExpiry.CLIENT_CLOCK : DynamoDbExpiry.OBSERVED);
			if (dynamodb.isCreateTable()) {
				store.createTableIfNotExists();
			}
			if (clientClock) {
				logger.warn("Using the DynamoDB lock store on table '" + dynamodb.getTable() + "' through " + source
						+ " with lock.dynamodb.expiry=client-clock: lock expiry is decided by the application "
						+ "instances' wall clocks, so an instance whose clock runs ahead takes held locks over. "
						+ "Keep the clocks synchronized well within the time-to-live, or remove the property.");
			}
			else {
				logger.info("Using the DynamoDB lock store on table '" + dynamodb.getTable() + "' through " + source
						+ ". A lock is taken over once it stayed unchanged for its time-to-live; the instances' "
						+ "clocks need not agree.");
			}
			return store;
		}

		private static String describe(DynamoDbLockStoreProperties dynamodb) {
			URI endpoint = dynamodb.getEndpoint();
			String region = dynamodb.getRegion();
			return "endpoint " + ((endpoint != null) ? endpoint : "of the region") + ", region "
					+ ((region != null) ? region : "from the AWS SDK") + ", timeout " + dynamodb.getTimeout();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass(STORE_CLASS)
	static class StoreModuleMissing {

		@Bean
		LockStore unavailableDynamoDbLockStore() {
			throw LockStoreConfigurations.storeModuleMissing(Store.DYNAMODB, "lock-store-dynamodb");
		}

	}

}
