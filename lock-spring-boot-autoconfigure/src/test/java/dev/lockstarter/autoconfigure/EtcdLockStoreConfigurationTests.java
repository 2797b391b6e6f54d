package dev.lockstarter.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.etcd.jetcd.Client;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.etcd.EtcdClients;
import dev.lockstarter.store.etcd.EtcdLockStore;
import dev.lockstarter.test.etcd.EtcdServerExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the etcd lock store's auto-configuration ({@code lock.store=etcd}), against a
 * real etcd server.
 */
class EtcdLockStoreConfigurationTests {

	@RegisterExtension
	static final EtcdServerExtension etcd = new EtcdServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class));

	@Test
	void etcdStoreOnItsOwnClientLocksUnderTheConfiguredPrefix() {
		this.contextRunner
			.withPropertyValues("lock.store=etcd", "lock.etcd.endpoints=" + etcd.endpoint(),
					"lock.etcd.prefix=/app/locks/", "lock.etcd.results-prefix=/app/results/", "lock.etcd.timeout=3s")
			.run((context) -> {
				assertThat(context).hasSingleBean(EtcdLockStore.class);
				assertThat(context).hasBean("lockEtcdClient");
				EtcdLockStore store = context.getBean(EtcdLockStore.class);
				assertThat(store.lockKey("orders").toString(StandardCharsets.UTF_8)).isEqualTo("/app/locks/orders");
				assertThat(store.resultKey("orders").toString(StandardCharsets.UTF_8)).isEqualTo("/app/results/orders");
				AcquireReply acquired = store.tryAcquire("own-client", "owner", Duration.ofSeconds(10));
				assertThat(acquired.isAcquired()).isTrue();
				assertThat(acquired.fencingToken()).isPositive();
				assertThat(store.release("own-client", "owner")).isTrue();
				LockAttempt attempt = context.getBean(LockOperations.class)
					.tryAcquire("through-operations", Duration.ofSeconds(10));
				assertThat(attempt.isAcquired()).isTrue();
				assertThat(attempt.lease().fencingToken()).isGreaterThan(acquired.fencingToken());
				attempt.lease().close();
			});
	}

	@Test
	void applicationsEtcdClientIsUsedWhenItDefinesOne() {
		this.contextRunner.withUserConfiguration(ApplicationEtcdClient.class)
			.withPropertyValues("lock.store=etcd", "lock.etcd.endpoints=http://127.0.0.1:1")
			.run((context) -> {
				assertThat(context).hasSingleBean(EtcdLockStore.class);
				assertThat(context).doesNotHaveBean("lockEtcdClient");
				EtcdLockStore store = context.getBean(EtcdLockStore.class);
				assertThat(store.tryAcquire("application-client", "owner", Duration.ofSeconds(10)).isAcquired())
					.as("acquired through the application's client, not the unreachable endpoint")
					.isTrue();
				assertThat(store.release("application-client", "owner")).isTrue();
			});
	}

	@Test
	void etcdStoreWithoutItsModuleFailsNamingIt() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(EtcdLockStore.class))
			.withPropertyValues("lock.store=etcd")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.store")
				.hasMessageContaining("dev.lockstarter:lock-store-etcd"));
	}

	@Test
	void endpointThatIsNotAnHttpUrlFailsStartupNamingIt() {
		this.contextRunner
			.withPropertyValues("lock.store=etcd", "lock.etcd.endpoints=" + etcd.endpoint() + ",127.0.0.1:2379")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.etcd.endpoints[1]")
				.hasMessageContaining("http or https URL"));
	}

	@Test
	void nonPositiveTimeoutFailsStartupNamingIt() {
		this.contextRunner.withPropertyValues("lock.store=etcd", "lock.etcd.timeout=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.etcd.timeout"));
	}

	@Test
	void resultsPrefixInsideTheLockPrefixFailsStartupNamingIt() {
		this.contextRunner
			.withPropertyValues("lock.store=etcd", "lock.etcd.results-prefix=/lock-starter/locks/results/")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.etcd.results-prefix"));
	}

	@Test
	void usernameWithoutPasswordFailsStartupNamingThePassword() {
		this.contextRunner.withPropertyValues("lock.store=etcd", "lock.etcd.username=locks")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.etcd.password"));
	}

	@Test
	void unknownSslBundleFailsStartupNamingIt() {
		this.contextRunner
			.withPropertyValues("lock.store=etcd", "lock.etcd.endpoints=" + etcd.endpoint(),
					"lock.etcd.ssl.bundle=missing")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.etcd.ssl.bundle"));
	}

	@Test
	void permitsAndReadWriteLocksFailStartupOnTheEtcdStore() {
		this.contextRunner.withUserConfiguration(LockKindsAutoConfigurationTests.Reports.Config.class)
			.withPropertyValues("lock.store=etcd", "lock.etcd.endpoints=" + etcd.endpoint())
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.store")
				.hasMessageContaining("keeps only one holder per key")
				.hasMessageContaining("Reports.export(String) (permits(2))")
				.hasMessageContaining("Reports.read(String) (read)"));
	}

	@Configuration(proxyBeanMethods = false)
	static class ApplicationEtcdClient {

		@Bean(destroyMethod = "close")
		Client applicationEtcdClient() {
			return EtcdClients.client(Duration.ofSeconds(2), etcd.endpoint());
		}

	}

}
