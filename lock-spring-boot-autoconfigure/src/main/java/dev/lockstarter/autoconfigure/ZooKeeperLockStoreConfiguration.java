package dev.lockstarter.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

import dev.lockstarter.autoconfigure.LockProperties.Store;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.zookeeper.ZooKeeperClients;
import dev.lockstarter.store.zookeeper.ZooKeeperLockStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The ZooKeeper lock store, selected with {@code lock.store=zookeeper}: a
 * {@link ZooKeeperLockStore} on the application's {@link CuratorFramework} bean if there
 * is one, and otherwise on a client of its own built from {@code lock.zookeeper.*}; or a
 * startup failure that names the missing module.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "lock.store", havingValue = "zookeeper")
@ConditionalOnMissingBean(LockStore.class)
class ZooKeeperLockStoreConfiguration {

	private static final Log logger = LogFactory.getLog(ZooKeeperLockStoreConfiguration.class);

	static final String STORE_CLASS = "dev.lockstarter.store.zookeeper.ZooKeeperLockStore";

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = STORE_CLASS)
	static class StoreAvailable {

		/**
		 * The lock store's own client, when the application has none: every connection
		 * attempt, request and retry bounded by the store's timeout. Not a candidate for
		 * injection by type, so that it never stands in for an application client.
		 */
		@Bean(destroyMethod = "close", defaultCandidate = false)
		@ConditionalOnMissingBean(CuratorFramework.class)
		CuratorFramework lockCuratorFramework(ZooKeeperLockStoreProperties zookeeper) {
			CuratorFrameworkFactory.Builder builder = ZooKeeperClients.bounded(zookeeper.getConnectString(),
					zookeeper.getSessionTimeout(), zookeeper.getTimeout());
			String username = zookeeper.getUsername();
			String password = zookeeper.getPassword();
			if (username != null && password != null) {
				builder.authorization("digest", (username + ":" + password).getBytes(StandardCharsets.UTF_8))
					.aclProvider(new CreatorOnly());
			}
			CuratorFramework client = builder.build();
			client.start();
			return client;
		}

		@Bean(destroyMethod = "close")
		ZooKeeperLockStore zooKeeperLockStore(ZooKeeperLockStoreProperties zookeeper,
				@Qualifier("lockCuratorFramework") ObjectProvider<CuratorFramework> lockClient,
				ObjectProvider<CuratorFramework> applicationClient) {
			CuratorFramework client = lockClient.getIfAvailable();
			String source;
			if (client != null) {
				source = "its own client (" + zookeeper.getConnectString() + ", session timeout "
						+ zookeeper.getSessionTimeout() + ")";
			}
			else {
				client = applicationClient.getObject();
				source = "the application's CuratorFramework";
				if (client.getState() == CuratorFrameworkState.LATENT) {
					client.start();
				}
			}
			ZooKeeperLockStore store = new ZooKeeperLockStore(client, zookeeper.getBasePath(), zookeeper.getTimeout(),
					Clock.systemUTC());
			logger.info("Using the ZooKeeper lock store under '" + zookeeper.getBasePath() + "' through " + source
					+ ", timeout " + zookeeper.getTimeout()
					+ ". A lock is taken over once it stayed unchanged for its time-to-live, whatever its "
					+ "holder's session; the instances' clocks need not agree.");
			return store;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass(STORE_CLASS)
	static class StoreModuleMissing {

		@Bean
		LockStore unavailableZooKeeperLockStore() {
			throw LockStoreConfigurations.storeModuleMissing(Store.ZOOKEEPER, "lock-store-zookeeper");
		}

	}

	/**
	 * Nodes readable and writable only by the identity that created them: the digest user
	 * shared by every instance of the application.
	 */
	private static final class CreatorOnly implements ACLProvider {

		@Override
		public List<ACL> getDefaultAcl() {
			return ZooDefs.Ids.CREATOR_ALL_ACL;
		}

		@Override
		public List<ACL> getAclForPath(String path) {
			return ZooDefs.Ids.CREATOR_ALL_ACL;
		}

	}

}
