package dev.lockstarter.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Clock;

import javax.net.ssl.SSLException;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.netty.handler.ssl.SslContextBuilder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.lockstarter.autoconfigure.LockProperties.Store;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.etcd.EtcdClients;
import dev.lockstarter.store.etcd.EtcdLockStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The etcd lock store, selected with {@code lock.store=etcd}: an {@link EtcdLockStore} on
 * the application's jetcd {@link Client} bean if there is one, and otherwise on a client
 * of its own built from {@code lock.etcd.*}, with its waits bounded by the store's
 * timeout; or a startup failure that names the missing module.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "lock.store", havingValue = "etcd")
@ConditionalOnMissingBean(LockStore.class)
class EtcdLockStoreConfiguration {

	private static final Log logger = LogFactory.getLog(EtcdLockStoreConfiguration.class);

	static final String STORE_CLASS = "dev.lockstarter.store.etcd.EtcdLockStore";

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = STORE_CLASS)
	static class StoreAvailable {

		/**
		 * The lock store's own client, when the application has none: not a candidate for
		 * injection by type, so that it never stands in for an application client.
		 */
		@Bean(destroyMethod = "close", defaultCandidate = false)
		@ConditionalOnMissingBean(Client.class)
		Client lockEtcdClient(EtcdLockStoreProperties etcd, ObjectProvider<SslBundles> sslBundles) {
			ClientBuilder builder = EtcdClients.builder(etcd.getTimeout())
				.endpoints(etcd.getEndpoints().toArray(String[]::new));
			String username = etcd.getUsername();
			String password = etcd.getPassword();
			if (username != null && password != null) {
				builder.user(ByteSequence.from(username, StandardCharsets.UTF_8))
					.password(ByteSequence.from(password, StandardCharsets.UTF_8));
			}
			String bundleName = etcd.getSsl().getBundle();
			if (bundleName != null) {
				SslBundle bundle = sslBundle(sslBundles, bundleName);
				try {
					builder.sslContext(SslContextBuilder.forClient()
						.keyManager(bundle.getManagers().getKeyManagerFactory())
						.trustManager(bundle.getManagers().getTrustManagerFactory())
						.build());
				}
				catch (SSLException ex) {
					throw new InvalidConfigurationPropertyValueException("lock.etcd.ssl.bundle", bundleName,
							"The SSL bundle cannot secure the etcd client: " + ex.getMessage());
				}
			}
			return builder.build();
		}

		@Bean
		EtcdLockStore etcdLockStore(EtcdLockStoreProperties etcd,
				@Qualifier("lockEtcdClient") ObjectProvider<Client> lockClient,
				ObjectProvider<Client> applicationClient) {
			Client client = lockClient.getIfAvailable();
			String source;
			if (client != null) {
				source = "its own client (endpoints " + etcd.getEndpoints() + ", timeout " + etcd.getTimeout()
						+ ((etcd.getSsl().getBundle() != null) ? ", SSL bundle '" + etcd.getSsl().getBundle() + "'"
								: "")
						+ ")";
			}
			else {
				client = applicationClient.getObject();
				source = "the application's etcd Client";
			}
			EtcdLockStore store = new EtcdLockStore(client, etcd.getPrefix(), etcd.getResultsPrefix(),
					etcd.getTimeout(), Clock.systemUTC());
			logger.info("Using the etcd lock store under '" + etcd.getPrefix() + "' through " + source
					+ ". A lock is taken over once it stayed unchanged for its time-to-live; the instances' clocks "
					+ "need not agree.");
			return store;
		}

		private static SslBundle sslBundle(ObjectProvider<SslBundles> sslBundles, String name) {
			SslBundles bundles = sslBundles.getIfAvailable();
			try {
				if (bundles != null) {
					return bundles.getBundle(name);
				}
			}
			catch (NoSuchSslBundleException ex) {
				// Reported below
			}
			throw new InvalidConfigurationPropertyValueException("lock.etcd.ssl.bundle", name,
					"No SSL bundle of that name is configured (spring.ssl.bundle.*).");
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass(STORE_CLASS)
	static class StoreModuleMissing {

		@Bean
		LockStore unavailableEtcdLockStore() {
			throw LockStoreConfigurations.storeModuleMissing(Store.ETCD, "lock-store-etcd");
		}

	}

}
