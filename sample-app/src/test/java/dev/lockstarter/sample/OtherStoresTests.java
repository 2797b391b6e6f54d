package dev.lockstarter.sample;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.dynamodb.DynamoDbLockStore;
import dev.lockstarter.store.memcached.MemcachedLockStore;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension;
import dev.lockstarter.test.memcached.MemcachedServerExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample app on the Memcached and DynamoDB stores, each brought by its module and
 * chosen by its profile ({@code lock.store}): two instances share a real server, and
 * simultaneous registrations of one name across them register it once.
 */
class OtherStoresTests {

	private static final int CONCURRENT_REQUESTS = 10;

	private static final String LATENCY = "--sample.points-service.latency=500ms";

	private final SampleClient client = new SampleClient();

	@Nested
	@TestInstance(TestInstance.Lifecycle.PER_CLASS)
	class Memcached {

		@RegisterExtension
		static final MemcachedServerExtension memcached = new MemcachedServerExtension();

		private List<ConfigurableApplicationContext> instances;

		@BeforeAll
		void startInstances() {
			this.instances = startTwo("memcached", "--lock.memcached.servers=" + memcached.address());
		}

		@AfterAll
		void stopInstances() {
			this.instances.forEach(ConfigurableApplicationContext::close);
		}

		@Test
		void simultaneousRegistrationsAcrossInstancesRegisterTheNameOnce() {
			assertThat(this.instances).allSatisfy(
					(context) -> assertThat(context.getBean(LockStore.class)).isInstanceOf(MemcachedLockStore.class));
			registerTogetherOnce(this.instances);
		}

	}

	@Nested
	@TestInstance(TestInstance.Lifecycle.PER_CLASS)
	class DynamoDb {

		@RegisterExtension
		static final DynamoDbLocalServerExtension dynamoDb = new DynamoDbLocalServerExtension();

		private List<ConfigurableApplicationContext> instances;

		@BeforeAll
		void startInstances() {
			// DynamoDB Local accepts any credentials, but the AWS SDK needs some
			System.setProperty("aws.accessKeyId", "local");
			System.setProperty("aws.secretAccessKey", "local");
			this.instances = startTwo("dynamodb", "--lock.dynamodb.endpoint=" + dynamoDb.endpoint());
		}

		@AfterAll
		void stopInstances() {
			this.instances.forEach(ConfigurableApplicationContext::close);
			System.clearProperty("aws.accessKeyId");
			System.clearProperty("aws.secretAccessKey");
		}

		@Test
		void simultaneousRegistrationsAcrossInstancesRegisterTheNameOnce() {
			assertThat(this.instances).allSatisfy(
					(context) -> assertThat(context.getBean(LockStore.class)).isInstanceOf(DynamoDbLockStore.class));
			registerTogetherOnce(this.instances);
		}

	}

	private static List<ConfigurableApplicationContext> startTwo(String profile, String storeArgument) {
		return List.of(start(profile, storeArgument), start(profile, storeArgument));
	}

	private static ConfigurableApplicationContext start(String profile, String storeArgument) {
		return new SpringApplicationBuilder(SampleApplication.class).profiles(profile)
			.run("--server.port=0", storeArgument, LATENCY);
	}

	/**
	 * The users stay in each instance's memory with these profiles: the registrations of
	 * all instances together must hold the name once.
	 */
	private void registerTogetherOnce(List<ConfigurableApplicationContext> instances) {
		String userName = "user-" + UUID.randomUUID().toString().substring(0, 8);
		List<URI> bases = instances.stream().map(SampleClient::base).toList();
		List<HttpResponse<String>> responses = this.client.sendTogether(CONCURRENT_REQUESTS,
				(i) -> this.client.registration(bases.get(i % bases.size()), SampleClient.SAFE, userName));
		Map<Integer, Long> statuses = responses.stream()
			.collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
		assertThat(statuses).containsExactlyInAnyOrderEntriesOf(Map.of(201, 1L, 409, (long) CONCURRENT_REQUESTS - 1));
		int stored = bases.stream().mapToInt((base) -> this.client.findByName(base, userName).size()).sum();
		assertThat(stored).isEqualTo(1);
	}

}
