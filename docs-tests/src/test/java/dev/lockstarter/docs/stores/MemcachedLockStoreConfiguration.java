package dev.lockstarter.docs.stores;

import java.io.IOException;

import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.command.BinaryCommandFactory;
import net.rubyeye.xmemcached.impl.KetamaMemcachedSessionLocator;
import net.rubyeye.xmemcached.utils.AddrUtil;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memcached.MemcachedLockStore;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A Memcached lock store on a client the application builds itself.
 */
@Configuration(proxyBeanMethods = false)
public class MemcachedLockStoreConfiguration {

	// tag::memcached-store-bean[]
	@Bean(destroyMethod = "shutdown")
	MemcachedClient lockMemcachedClient() throws IOException {
		XMemcachedClientBuilder builder = new XMemcachedClientBuilder(
				AddrUtil.getAddresses("cache1:11211 cache2:11211"));
		// Required: the binary protocol's CAS-checked delete
		builder.setCommandFactory(new BinaryCommandFactory());
		builder.setSessionLocator(new KetamaMemcachedSessionLocator());
		// A down server fails its keys instead of moving them
		builder.setFailureMode(true);
		builder.setOpTimeout(1000);
		return builder.build();
	}

	@Bean
	LockStore lockStore(MemcachedClient lockMemcachedClient) {
		return new MemcachedLockStore(lockMemcachedClient);
	}
	// end::memcached-store-bean[]

}
