package dev.lockstarter.server;

import java.util.List;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.etcd.EtcdServerExtension;

/**
 * {@link RenewalOnAnotherInstanceTests} on a real etcd. The server is not packaged with
 * the etcd store; the test adds it, to run the server's detached operations on it.
 */
class EtcdRenewalOnAnotherInstanceTests extends RenewalOnAnotherInstanceTests {

	@RegisterExtension
	static final EtcdServerExtension etcd = new EtcdServerExtension();

	@Override
	protected List<String> storeProperties() {
		return List.of("lock.store=etcd", "lock.etcd.endpoints=" + etcd.endpoint());
	}

}
