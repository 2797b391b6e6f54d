package dev.lockstarter.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Namespaces never share keys by accident: prefixes that would let them fail startup
 * naming the property, and sharing the applications' keys is an explicit choice. Also the
 * per-client limits of waits and held locks.
 */
class NamespaceLocksTests {

	private final LockServerProperties properties = new LockServerProperties();

	@Test
	void defaultPrefixesAreTheNamespaceUnderTheServersOwn() {
		assertThat(NamespaceLocks.prefixes(clients("mobile", "web", "web.v2"), this.properties, "lock:")).isEqualTo(
				Map.of("mobile", "lock-server:mobile:", "web", "lock-server:web:", "web.v2", "lock-server:web.v2:"));
	}

	@Test
	void emptyEqualOrNestedPrefixesFailNamingTheProperty() {
		prefix("mobile", "");
		assertThatIllegalStateException()
			.isThrownBy(() -> NamespaceLocks.prefixes(clients("mobile"), this.properties, "lock:"))
			.withMessageContaining("lock.server.namespaces.mobile.key-prefix must not be empty");
		prefix("mobile", "tenant:");
		prefix("web", "tenant:");
		assertThatIllegalStateException()
			.isThrownBy(() -> NamespaceLocks.prefixes(clients("mobile", "web"), this.properties, "lock:"))
			.withMessageContaining("lock.server.namespaces.web.key-prefix ('tenant:') overlaps")
			.withMessageContaining("namespace 'mobile'");
		prefix("web", "tenant:web:");
		assertThatIllegalStateException()
			.isThrownBy(() -> NamespaceLocks.prefixes(clients("mobile", "web"), this.properties, "lock:"))
			.withMessageContaining("lock.server.namespaces.web.key-prefix ('tenant:web:') overlaps");
		// The server's own prefix, set on one namespace,
		// holds every other namespace's keys
		this.properties.getNamespaces().clear();
		prefix("admin", "lock-server:");
		assertThatIllegalStateException()
			.isThrownBy(() -> NamespaceLocks.prefixes(clients("mobile", "admin"), this.properties, "lock:"))
			.withMessageContaining("lock.server.namespaces.admin.key-prefix ('lock-server:') overlaps");
	}

	@Test
	void sharingTheApplicationsKeysIsAnExplicitChoice() {
		prefix("jobs", "lock:");
		assertThatIllegalStateException()
			.isThrownBy(() -> NamespaceLocks.prefixes(clients("jobs"), this.properties, "lock:"))
			.withMessageContaining("lock.server.namespaces.jobs.key-prefix ('lock:') overlaps the applications' "
					+ "lock.key-prefix ('lock:')")
			.withMessageContaining("lock.server.namespaces.jobs.shares-application-keys=true");
		prefix("jobs", "lock:reports:");
		assertThatIllegalStateException()
			.isThrownBy(() -> NamespaceLocks.prefixes(clients("jobs"), this.properties, "lock:"));
		this.properties.getNamespaces().get("jobs").setSharesApplicationKeys(true);
		assertThat(NamespaceLocks.prefixes(clients("jobs"), this.properties, "lock:"))
			.isEqualTo(Map.of("jobs", "lock:reports:"));
	}

	@Test
	void theServerDoesNotStartWithOverlappingPrefixes() {
		assertThatThrownBy(() -> new SpringApplicationBuilder(LockServerApplication.class).run("--server.port=0",
				"--management.server.port=0", "--lock.store=memory", "--lock.server.clients[0].namespace=mobile",
				"--lock.server.clients[0].api-key-sha256=" + LockServers.sha256("k"),
				"--lock.server.namespaces.mobile.key-prefix=lock:"))
			.rootCause()
			.hasMessageContaining("lock.server.namespaces.mobile.key-prefix");
	}

	@Test
	void waitsAreLimitedPerClientAndInAll() {
		this.properties.setMaxWaitsPerClient(2);
		ApiClients clients = clients("a", "b", "c");
		ApiClients.ApiClient a = clients.authenticate("key-a");
		ApiClients.ApiClient b = clients.authenticate("key-b");
		ApiClients.ApiClient c = clients.authenticate("key-c");
		WaitLimiter limiter = new WaitLimiter(3);
		assertThat(limiter.tryStart(a)).isTrue();
		assertThat(limiter.tryStart(a)).isTrue();
		assertThat(limiter.tryStart(a)).as("a's own limit").isFalse();
		assertThat(limiter.tryStart(b)).isTrue();
		assertThat(limiter.tryStart(c)).as("the server's limit").isFalse();
		limiter.end(a);
		assertThat(limiter.tryStart(c)).isTrue();
		assertThat(limiter.waiting()).isEqualTo(3);
	}

	@Test
	void heldLocksAreCountedUntilReleasedOrExpired() {
		this.properties.setMaxLocksPerClient(2);
		ApiClients.ApiClient client = clients("a").authenticate("key-a");
		AtomicLong now = new AtomicLong();
		LockQuotas quotas = new LockQuotas(now::get);
		assertThat(quotas.tryReserve(client)).isTrue();
		quotas.granted(client, "k1", 1_000);
		assertThat(quotas.tryReserve(client)).isTrue();
		assertThat(quotas.tryReserve(client)).as("one held, one being acquired").isFalse();
		quotas.refused(client);
		assertThat(quotas.tryReserve(client)).isTrue();
		quotas.granted(client, "k2", 5_000);
		assertThat(quotas.tryReserve(client)).isFalse();
		quotas.released(client, "k2");
		assertThat(quotas.tryReserve(client)).isTrue();
		quotas.granted(client, "k3", 5_000);
		quotas.renewed(client, "k1", 10_000);
		now.set(2_000);
		assertThat(quotas.tryReserve(client)).as("k1 was renewed past now").isFalse();
		now.set(10_000);
		assertThat(quotas.tryReserve(client)).as("k1 expired").isTrue();
	}

	private void prefix(String namespace, String prefix) {
		this.properties.getNamespaces()
			.computeIfAbsent(namespace, (name) -> new LockServerProperties.Namespace())
			.setKeyPrefix(prefix);
	}

	private ApiClients clients(String... namespaces) {
		List<LockServerProperties.Client> configured = new ArrayList<>();
		for (String namespace : namespaces) {
			LockServerProperties.Client client = new LockServerProperties.Client();
			client.setName(namespace);
			client.setNamespace(namespace);
			client.setApiKeySha256(LockServers.sha256("key-" + namespace));
			configured.add(client);
		}
		return new ApiClients(configured, this.properties);
	}

}
