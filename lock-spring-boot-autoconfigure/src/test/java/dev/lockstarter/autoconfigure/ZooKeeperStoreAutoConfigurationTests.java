package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryUntilElapsed;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.zookeeper.ZooKeeperLockStore;
import dev.lockstarter.test.zookeeper.ZooKeeperServerExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for the selection and configuration of the ZooKeeper lock store by
 * {@link LockAutoConfiguration}, against a real ZooKeeper server.
 */
@ExtendWith(OutputCaptureExtension.class)
class ZooKeeperStoreAutoConfigurationTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	static final ZooKeeperServerExtension zooKeeper = new ZooKeeperServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class));

	@Test
	void zooKeeperStoreBuildsItsOwnClientFromTheProperties(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("lock.store=zookeeper", "lock.zookeeper.connect-string=" + zooKeeper.connectString(),
					"lock.zookeeper.base-path=/own-client", "lock.zookeeper.session-timeout=4s")
			.run((context) -> {
				assertThat(context).hasSingleBean(ZooKeeperLockStore.class);
				assertThat(context).hasBean("lockCuratorFramework");
				CuratorFramework client = context.getBean("lockCuratorFramework", CuratorFramework.class);
				assertThat(client.getZookeeperClient().getConnectionTimeoutMs()).isEqualTo(2000);
				// The client connects in the background from the context's start:
				// the store's first call, bounded by lock.zookeeper.timeout (2 s),
				// is not to wait for a new session on a busy machine
				assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
				LockStore store = context.getBean(LockStore.class);
				String key = "auto:" + UUID.randomUUID();
				String owner = UUID.randomUUID().toString();
				assertThat(store.tryAcquire(key, owner, TTL).fencingToken()).isPositive();
				assertThat(client.checkExists().forPath("/own-client/locks")).isNotNull();
				assertThat(store.release(key, owner)).isTrue();
				assertThat(output)
					.contains("Using the ZooKeeper lock store under '/own-client' through its own client ("
							+ zooKeeper.connectString() + ", session timeout PT4S), timeout PT2S");
			});
	}

	@Test
	void applicationsCuratorFrameworkIsUsedWhenItDefinesOne(CapturedOutput output) {
		this.contextRunner.withUserConfiguration(ApplicationCurator.class)
			.withPropertyValues("lock.store=zookeeper", "lock.zookeeper.base-path=/application-client")
			.run((context) -> {
				assertThat(context).doesNotHaveBean("lockCuratorFramework");
				CuratorFramework client = context.getBean(CuratorFramework.class);
				LockStore store = context.getBean(LockStore.class);
				String key = "auto:" + UUID.randomUUID();
				String owner = UUID.randomUUID().toString();
				assertThat(store.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
				assertThat(client.checkExists().forPath("/application-client/locks")).isNotNull();
				assertThat(store.release(key, owner)).isTrue();
				assertThat(output).contains("through the application's CuratorFramework");
			});
	}

	@Test
	void digestCredentialsMakeTheNodesTheirsAlone() {
		this.contextRunner
			.withPropertyValues("lock.store=zookeeper", "lock.zookeeper.connect-string=" + zooKeeper.connectString(),
					"lock.zookeeper.base-path=/digest", "lock.zookeeper.username=locks",
					"lock.zookeeper.password=secret")
			.run((context) -> {
				LockStore store = context.getBean(LockStore.class);
				String key = "acl";
				String owner = UUID.randomUUID().toString();
				assertThat(store.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
				CuratorFramework client = context.getBean("lockCuratorFramework", CuratorFramework.class);
				assertThat(client.getACL().forPath("/digest/locks/acl")).singleElement()
					.satisfies((acl) -> assertThat(acl.getId().getScheme()).isEqualTo("digest"))
					.satisfies((acl) -> assertThat(acl.getId().getId()).startsWith("locks:"))
					.satisfies((acl) -> assertThat(acl.getPerms()).isEqualTo(ZooDefs.Perms.ALL));
				try (CuratorFramework anonymous = CuratorFrameworkFactory.newClient(zooKeeper.connectString(),
						new RetryUntilElapsed(2000, 50))) {
					anonymous.start();
					assertThat(anonymous.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
					assertThatExceptionOfType(KeeperException.NoAuthException.class)
						.isThrownBy(() -> anonymous.getData().forPath("/digest/locks/acl"));
					assertThatExceptionOfType(KeeperException.NoAuthException.class)
						.isThrownBy(() -> anonymous.delete().forPath("/digest/locks/acl"));
				}
				assertThat(store.release(key, owner)).isTrue();
			});
	}

	@Test
	void missingModuleFailsStartupNamingIt() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(ZooKeeperLockStore.class))
			.withPropertyValues("lock.store=zookeeper")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.store")
				.hasMessageContaining("dev.lockstarter:lock-store-zookeeper"));
	}

	@Test
	void invalidPropertiesFailStartupNamingTheProperty() {
		assertStartupFails("lock.zookeeper.connect-string=zk1", "lock.zookeeper.connect-string");
		assertStartupFails("lock.zookeeper.base-path=locks/", "lock.zookeeper.base-path");
		assertStartupFails("lock.zookeeper.base-path=/a/../b", "lock.zookeeper.base-path");
		assertStartupFails("lock.zookeeper.timeout=0s", "lock.zookeeper.timeout");
		assertStartupFails("lock.zookeeper.session-timeout=0s", "lock.zookeeper.session-timeout");
		assertStartupFails("lock.zookeeper.username=locks", "lock.zookeeper.password");
	}

	@Test
	void permitsAndReadWriteLocksAreRefusedAtStartup() {
		this.contextRunner.withUserConfiguration(LockKindsAutoConfigurationTests.Reports.Config.class)
			.withPropertyValues("lock.store=zookeeper", "lock.zookeeper.connect-string=" + zooKeeper.connectString())
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.store")
				.hasMessageContaining("keeps only one holder per key")
				.hasMessageContaining("Reports.export(String) (permits(2))")
				.hasMessageContaining("Reports.read(String) (read)"));
	}

	private void assertStartupFails(String property, String named) {
		this.contextRunner.withPropertyValues("lock.store=zookeeper", property)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining(named));
	}

	@Configuration(proxyBeanMethods = false)
	static class ApplicationCurator {

		@Bean(destroyMethod = "close")
		CuratorFramework curatorFramework() {
			CuratorFramework client = CuratorFrameworkFactory.builder()
				.connectString(zooKeeper.connectString())
				.connectionTimeoutMs(2000)
				.retryPolicy(new RetryUntilElapsed(2000, 50))
				.build();
			client.start();
			return client;
		}

	}

}
