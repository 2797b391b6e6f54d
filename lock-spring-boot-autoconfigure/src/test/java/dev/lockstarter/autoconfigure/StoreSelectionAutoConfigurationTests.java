package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.dynamodb.DynamoDbExpiry;
import dev.lockstarter.store.dynamodb.DynamoDbLockStore;
import dev.lockstarter.store.memcached.MemcachedLockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension;
import dev.lockstarter.test.memcached.MemcachedServerExtension;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for the selection and configuration of the Memcached and DynamoDB lock stores by
 * {@link LockAutoConfiguration}, against real servers.
 */
@ExtendWith(OutputCaptureExtension.class)
class StoreSelectionAutoConfigurationTests {

	@RegisterExtension
	static final MemcachedServerExtension memcached = new MemcachedServerExtension();

	@RegisterExtension
	static final DynamoDbLocalServerExtension dynamoDb = new DynamoDbLocalServerExtension();

	private static final String ACCESS_KEY_PROPERTY = "aws.accessKeyId";

	private static final String SECRET_KEY_PROPERTY = "aws.secretAccessKey";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class));

	@BeforeAll
	static void setPlaceholderAwsCredentials() {
		// The AWS SDK's default credentials chain reads these; DynamoDB Local accepts any
		System.setProperty(ACCESS_KEY_PROPERTY, "local");
		System.setProperty(SECRET_KEY_PROPERTY, "local");
	}

	@AfterAll
	static void clearPlaceholderAwsCredentials() {
		System.clearProperty(ACCESS_KEY_PROPERTY);
		System.clearProperty(SECRET_KEY_PROPERTY);
	}

	@Test
	void memcachedStoreIsSelectedAndReachesTheConfiguredServer(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("lock.store=memcached", "lock.memcached.servers=" + memcached.address(),
					"lock.memcached.operation-timeout=750ms")
			.run((context) -> {
				assertThat(context).hasSingleBean(MemcachedLockStore.class);
				assertThat(context).doesNotHaveBean(InMemoryLockStore.class);
				assertExclusive(context);
				assertThat(output).contains("Using the Memcached lock store on " + memcached.address())
					.contains("fails after PT0.75S");
			});
	}

	@Test
	void memcachedStoreWinsOverAnAvailableRedis() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues("lock.store=memcached", "lock.memcached.servers=" + memcached.address())
			.run((context) -> {
				assertThat(context).hasSingleBean(MemcachedLockStore.class);
				assertThat(context).doesNotHaveBean(RedisLockStore.class);
			});
	}

	@Test
	void memcachedClientIsShutDownWithTheContext() {
		this.contextRunner.withPropertyValues("lock.store=memcached", "lock.memcached.servers=" + memcached.address())
			.run((context) -> {
				LockStore store = context.getBean(LockStore.class);
				assertThat(store.tryAcquire("lock:shutdown", "token", Duration.ofSeconds(5)).isAcquired()).isTrue();
				context.close();
				assertThatExceptionOfType(LockStoreException.class)
					.isThrownBy(() -> store.tryAcquire("lock:shutdown", "token", Duration.ofSeconds(5)));
			});
	}

	@Test
	void memcachedStoreWithoutItsModuleFailsNamingIt() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(MemcachedLockStore.class))
			.withPropertyValues("lock.store=memcached")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.store")
				.hasMessageContaining("dev.lockstarter:lock-store-memcached"));
	}

	@Test
	void memcachedServerWithoutPortFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("lock.store=memcached", "lock.memcached.servers=localhost:11211,cache")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.memcached.servers")
				.hasMessageContaining("'cache'")
				.hasMessageContaining("host:port"));
	}

	@Test
	void memcachedTimeoutsMustBePositive() {
		this.contextRunner.withPropertyValues("lock.store=memcached", "lock.memcached.operation-timeout=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("lock.memcached.operation-timeout"));
		this.contextRunner.withPropertyValues("lock.store=memcached", "lock.memcached.connect-timeout=-1s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("lock.memcached.connect-timeout"));
	}

	@Test
	void timeToLiveOverThirtyDaysFailsWithMemcachedOnly() {
		this.contextRunner.withPropertyValues("lock.store=memcached", "lock.ttl=31d")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.ttl")
				.hasMessageContaining("30 days"));
		this.contextRunner.withPropertyValues("lock.store=memory", "lock.ttl=31d")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void dynamoDbStoreBuildsItsOwnClientAndCreatesTheTable(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("lock.store=dynamodb", "lock.dynamodb.endpoint=" + dynamoDb.endpoint(),
					"lock.dynamodb.region=eu-west-1", "lock.dynamodb.table=own-client-locks",
					"lock.dynamodb.create-table=true")
			.run((context) -> {
				assertThat(context).hasSingleBean(DynamoDbLockStore.class);
				assertThat(context.getBean(DynamoDbLockStore.class).getTableName()).isEqualTo("own-client-locks");
				assertThat(context).hasBean("lockDynamoDbClient");
				assertExclusive(context);
				assertThat(output).contains("Using the DynamoDB lock store on table 'own-client-locks' through its "
						+ "own client (endpoint " + dynamoDb.endpoint() + ", region eu-west-1, timeout PT2S)");
			});
	}

	@Test
	void dynamoDbStoreObservesExpiryByDefaultAndTheClientClockModeIsOptInWithAWarning(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("lock.store=dynamodb", "lock.dynamodb.endpoint=" + dynamoDb.endpoint(),
					"lock.dynamodb.region=eu-west-1", "lock.dynamodb.table=observed-locks",
					"lock.dynamodb.create-table=true")
			.run((context) -> {
				assertThat(context.getBean(DynamoDbLockStore.class).getExpiry()).isEqualTo(DynamoDbExpiry.OBSERVED);
				assertThat(output).contains("the instances' clocks need not agree").doesNotContain("client-clock");
			});
		this.contextRunner
			.withPropertyValues("lock.store=dynamodb", "lock.dynamodb.endpoint=" + dynamoDb.endpoint(),
					"lock.dynamodb.region=eu-west-1", "lock.dynamodb.table=client-clock-locks",
					"lock.dynamodb.create-table=true", "lock.dynamodb.expiry=client-clock")
			.run((context) -> {
				assertThat(context.getBean(DynamoDbLockStore.class).getExpiry()).isEqualTo(DynamoDbExpiry.CLIENT_CLOCK);
				assertExclusive(context);
				assertThat(output).contains("WARN")
					.contains("lock.dynamodb.expiry=client-clock: lock expiry is decided by the application instances' "
							+ "wall clocks");
			});
	}

	@Test
	void storesOwnDynamoDbClientIsNotInjectedIntoTheApplication() {
		this.contextRunner.withUserConfiguration(DynamoDbClientConsumer.class)
			.withPropertyValues("lock.store=dynamodb", "lock.dynamodb.endpoint=" + dynamoDb.endpoint(),
					"lock.dynamodb.region=eu-west-1")
			.run((context) -> {
				assertThat(context).hasBean("lockDynamoDbClient");
				assertThat(context.getBean(DynamoDbClientConsumer.class).client)
					.as("DynamoDbClient injected into the application by type")
					.isNull();
			});
	}

	@Test
	void applicationsDynamoDbClientIsUsedWhenItDefinesOne(CapturedOutput output) {
		this.contextRunner.withUserConfiguration(ApplicationDynamoDbClient.class)
			.withPropertyValues("lock.store=dynamodb", "lock.dynamodb.table=application-client-locks",
					"lock.dynamodb.create-table=true", "lock.dynamodb.region=eu-west-1")
			.run((context) -> {
				assertThat(context).doesNotHaveBean("lockDynamoDbClient");
				assertThat(context).hasSingleBean(DynamoDbClient.class);
				AtomicInteger requests = context.getBean(ApplicationDynamoDbClient.class).requests;
				int before = requests.get();
				assertExclusive(context);
				assertThat(requests.get()).as("requests through the application's client").isGreaterThan(before);
				assertThat(output).contains("through the application's DynamoDbClient")
					.contains("lock.dynamodb.endpoint and lock.dynamodb.region are ignored");
			});
	}

	@Test
	void missingDynamoDbTableFailsTheFirstLockOperationNamingIt() {
		this.contextRunner
			.withPropertyValues("lock.store=dynamodb", "lock.dynamodb.endpoint=" + dynamoDb.endpoint(),
					"lock.dynamodb.region=eu-west-1", "lock.dynamodb.table=never-created")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LockOperations locks = context.getBean(LockOperations.class);
				assertThatExceptionOfType(LockStoreException.class)
					.isThrownBy(() -> locks.tryAcquire("user:42", Duration.ofSeconds(5)))
					.withMessageContaining("'never-created' does not exist");
			});
	}

	@Test
	void dynamoDbStoreWithoutItsModuleFailsNamingIt() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(DynamoDbLockStore.class))
			.withPropertyValues("lock.store=dynamodb")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.store")
				.hasMessageContaining("dev.lockstarter:lock-store-dynamodb"));
	}

	@Test
	void redisStoreWithoutItsModuleFailsNamingIt() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(RedisLockStore.class))
			.withPropertyValues("lock.store=redis")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.store")
				.hasMessageContaining("dev.lockstarter:lock-store-redis"));
	}

	@Test
	void withoutTheRedisModuleTheInMemoryStoreIsUsedEvenWithAConnectionFactory() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LockAutoConfiguration.class))
			.withClassLoader(StoreModules.none())
			.run((context) -> {
				assertThat(context).hasBean("redisConnectionFactory");
				assertThat(context).hasSingleBean(InMemoryLockStore.class);
			});
	}

	@Test
	void invalidDynamoDbPropertiesFailNamingTheProperty() {
		this.contextRunner.withPropertyValues("lock.store=dynamodb", "lock.dynamodb.table=x")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("lock.dynamodb.table")
				.hasMessageContaining("3 to 255 characters"));
		this.contextRunner.withPropertyValues("lock.store=dynamodb", "lock.dynamodb.endpoint=localhost:8000")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("lock.dynamodb.endpoint")
				.hasMessageContaining("http or https URL"));
		this.contextRunner.withPropertyValues("lock.store=dynamodb", "lock.dynamodb.timeout=0ms")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("lock.dynamodb.timeout"));
	}

	/** One caller holds a key at a time through the context's lock operations. */
	static void assertExclusive(ConfigurableApplicationContext context) {
		LockOperations locks = context.getBean(LockOperations.class);
		String key = "user:" + System.nanoTime();
		LockAttempt first = locks.tryAcquire(key, Duration.ofSeconds(10));
		assertThat(first.isAcquired()).isTrue();
		assertThat(locks.tryAcquire(key, Duration.ofSeconds(10)).isAcquired()).isFalse();
		first.lease().release();
		assertThat(locks.tryAcquire(key, Duration.ofSeconds(10)).isAcquired()).isTrue();
	}

	@Configuration(proxyBeanMethods = false)
	static class DynamoDbClientConsumer {

		final @Nullable DynamoDbClient client;

		DynamoDbClientConsumer(ObjectProvider<DynamoDbClient> client) {
			this.client = client.getIfAvailable();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ApplicationDynamoDbClient {

		final AtomicInteger requests = new AtomicInteger();

		@Bean(destroyMethod = "close")
		DynamoDbClient applicationDynamoDbClient() {
			return DynamoDbClient.builder()
				.endpointOverride(dynamoDb.endpoint())
				.region(software.amazon.awssdk.regions.Region.US_EAST_1)
				.overrideConfiguration((config) -> config.addExecutionInterceptor(new ExecutionInterceptor() {

					@Override
					public void beforeTransmission(Context.BeforeTransmission context,
							ExecutionAttributes executionAttributes) {
						ApplicationDynamoDbClient.this.requests.incrementAndGet();
					}

				}))
				.build();
		}

	}

}
