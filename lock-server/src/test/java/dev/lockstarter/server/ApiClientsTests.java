package dev.lockstarter.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * API keys, namespaces and rate limits as configured: what is accepted, what fails at
 * startup (naming the property), and how the token bucket refills.
 */
class ApiClientsTests {

	private final LockServerProperties properties = new LockServerProperties();

	@Test
	void authenticatesByTheHashOfTheKeyOnly() {
		ApiClients clients = new ApiClients(List.of(client("a", "key-a", "ns1"), client("b", "key-b", "ns2")),
				this.properties);
		assertThat(clients.authenticate("key-a").name()).isEqualTo("a");
		assertThat(clients.authenticate("key-b").namespace()).isEqualTo("ns2");
		assertThat(clients.authenticate("key-c")).isNull();
		assertThat(clients.authenticate("")).isNull();
		assertThat(clients.authenticate(LockServers.sha256("key-a"))).as("the hash is not the key").isNull();
		assertThat(clients.namespaces()).containsExactly("ns1", "ns2");
		assertThat(clients.authenticate("key-a").toString()).doesNotContain(LockServers.sha256("key-a"));
	}

	@Test
	void misconfiguredClientsFailNamingTheProperty() {
		LockServerProperties.Client noHash = client("a", "k", "ns");
		noHash.setApiKeySha256("secret-in-plain-text");
		assertThatIllegalStateException().isThrownBy(() -> new ApiClients(List.of(noHash), this.properties))
			.withMessageContaining("lock.server.clients[0].api-key-sha256")
			.withMessageNotContaining("secret-in-plain-text");
		assertThatIllegalStateException()
			.isThrownBy(() -> new ApiClients(List.of(client("a", "k", "bad/namespace")), this.properties))
			.withMessageContaining("lock.server.clients[0].namespace");
		assertThatIllegalStateException()
			.isThrownBy(() -> new ApiClients(List.of(client("a", "k", "ns"), client("b", "k", "ns")), this.properties))
			.withMessageContaining("lock.server.clients[1].api-key-sha256")
			.withMessageContaining("its own API key");
		assertThatIllegalStateException()
			.isThrownBy(
					() -> new ApiClients(List.of(client("a", "k1", "ns"), client("a", "k2", "ns")), this.properties))
			.withMessageContaining("lock.server.clients[1].name");
		LockServerProperties.Client negative = client("a", "k", "ns");
		negative.setRequestsPerSecond(-1);
		assertThatIllegalStateException().isThrownBy(() -> new ApiClients(List.of(negative), this.properties))
			.withMessageContaining("lock.server.clients[0]")
			.withMessageContaining("requests-per-second");
	}

	@Test
	void theBucketAllowsABurstThenRefillsAtTheRate() {
		AtomicLong now = new AtomicLong(1_000);
		RateLimiter limiter = new RateLimiter(now::get);
		LockServerProperties.Client configured = client("a", "k", "ns");
		configured.setRequestsPerSecond(10);
		configured.setBurst(3);
		ApiClients.ApiClient client = new ApiClients(List.of(configured), this.properties).authenticate("k");
		List<Long> waits = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			waits.add(limiter.take(client));
		}
		assertThat(waits.subList(0, 3)).containsOnly(0L);
		assertThat(waits.get(3)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
		now.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
		assertThat(limiter.take(client)).isZero();
		assertThat(limiter.take(client)).isPositive();
		// An idle client gets its burst back, never more
		now.addAndGet(TimeUnit.SECONDS.toNanos(60));
		for (int i = 0; i < 3; i++) {
			assertThat(limiter.take(client)).isZero();
		}
		assertThat(limiter.take(client)).isPositive();
		LockServerProperties.Client unlimited = client("u", "ku", "ns");
		unlimited.setRequestsPerSecond(0);
		ApiClients.ApiClient free = new ApiClients(List.of(unlimited), this.properties).authenticate("ku");
		for (int i = 0; i < 10_000; i++) {
			assertThat(limiter.take(free)).isZero();
		}
	}

	private static LockServerProperties.Client client(String name, String apiKey, String namespace) {
		LockServerProperties.Client client = new LockServerProperties.Client();
		client.setName(name);
		client.setApiKeySha256(LockServers.sha256(apiKey));
		client.setNamespace(namespace);
		return client;
	}

}
