package dev.lockstarter.test.zookeeper;

import dev.lockstarter.test.ServerExtension;

/**
 * JUnit Jupiter extension that runs one standalone {@link ZooKeeperServer} for a test
 * class: started before the first test (about a second), closed after the last.
 *
 * <pre class="code">
 * class MyZooKeeperTests {
 *
 *     &#64;RegisterExtension
 *     static final ZooKeeperServerExtension zookeeper = new ZooKeeperServerExtension();
 *
 *     &#64;Test
 *     void test() {
 *         connect(zookeeper.connectString());
 *     }
 *
 * }
 * </pre>
 *
 * It also resolves {@link ZooKeeperServer} parameters of constructors, lifecycle methods
 * and test methods. Registered on an instance field, it starts a fresh server for every
 * test. In a {@code @Nested} class, the server of the enclosing class is shared.
 *
 * @since 0.1.0
 */
public class ZooKeeperServerExtension extends ServerExtension<ZooKeeperServer> {

	/**
	 * Create an extension for a standalone server.
	 */
	public ZooKeeperServerExtension() {
		super(ZooKeeperServer.class);
	}

	/**
	 * Return the address of the server for a ZooKeeper or Curator client.
	 * @return the address
	 * @see ZooKeeperServer#connectString()
	 */
	public String connectString() {
		return server().connectString();
	}

	@Override
	protected ZooKeeperServer startServer() {
		return ZooKeeperServer.start();
	}

}
