package dev.lockstarter.docs.testing;

import java.time.Duration;

import dev.lockstarter.test.etcd.EtcdCluster;
import dev.lockstarter.test.fault.NamespaceNetwork;

/**
 * A partition between the members of an etcd cluster, as an application's failure test
 * would make it. It declares no test, so nothing starts when the build runs.
 */
class NamespaceNetworkExample {

	void isolateTheLeader() {
		// tag::namespace-network[]
		try (NamespaceNetwork network = NamespaceNetwork.create(3); EtcdCluster cluster = EtcdCluster.start(network)) {
			int leader = cluster.members().indexOf(cluster.leader());
			// Its peers no longer reach it; its clients still do
			network.isolate(leader);
			cluster.awaitLeader(Duration.ofSeconds(10));
			network.reconnect(leader);
		}
		// end::namespace-network[]
	}

}
