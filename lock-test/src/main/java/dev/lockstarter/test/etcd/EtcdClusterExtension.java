package dev.lockstarter.test.etcd;

import java.util.List;

import org.junit.jupiter.api.extension.ExtensionContext;

import dev.lockstarter.test.ServerExtension;

/**
 * JUnit Jupiter extension that runs one three-member {@link EtcdCluster} for a test
 * class: formed before the first test, ended after the last. Before every test it
 * {@linkplain EtcdCluster#heal() heals} the cluster, so each test begins with three
 * healthy members whatever the one before paused or killed; the leader may differ from
 * test to test.
 *
 * <pre class="code">
 * class MyFailoverTests {
 *
 *     &#64;RegisterExtension
 *     static final EtcdClusterExtension etcd = new EtcdClusterExtension();
 *
 *     &#64;DynamicPropertySource
 *     static void etcdProperties(DynamicPropertyRegistry registry) {
 *         registry.add("lock.etcd.endpoints", etcd::endpointsAsString);
 *     }
 *
 * }
 * </pre>
 *
 * It also resolves {@link EtcdCluster} parameters. Close the cluster's clients before the
 * class ends, so that they do not try to reconnect to stopped members.
 *
 * @since 0.1.0
 */
public class EtcdClusterExtension extends ServerExtension<EtcdCluster> {

	/**
	 * Create an extension for a three-member cluster.
	 */
	public EtcdClusterExtension() {
		super(EtcdCluster.class);
	}

	/**
	 * Return the client URLs of the members.
	 * @return the URLs
	 * @see EtcdCluster#endpoints()
	 */
	public List<String> endpoints() {
		return server().endpoints();
	}

	/**
	 * Return the client URLs of the members joined with commas.
	 * @return the URLs
	 * @see EtcdCluster#endpointsAsString()
	 */
	public String endpointsAsString() {
		return server().endpointsAsString();
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		super.beforeEach(context);
		server().heal();
	}

	@Override
	protected EtcdCluster startServer() {
		return EtcdCluster.start();
	}

}
