package dev.lockstarter.test.zookeeper;

import dev.lockstarter.test.ServerExtension;

/**
 * JUnit Jupiter extension that runs one {@link ZooKeeperEnsemble} of three servers for a
 * test class: formed before the first test, closed after the last.
 *
 * <pre class="code">
 * class MyEnsembleTests {
 *
 *     &#64;RegisterExtension
 *     static final ZooKeeperEnsembleExtension ensemble = new ZooKeeperEnsembleExtension();
 *
 *     &#64;AfterEach
 *     void heal() {
 *         ensemble.server().heal(Duration.ofSeconds(30));
 *     }
 *
 *     &#64;Test
 *     void survivesTheLossOfTheLeader() {
 *         ZooKeeperEnsemble servers = ensemble.server();
 *         servers.leader().kill();
 *         servers.awaitLeader(Duration.ofSeconds(10));
 *     }
 *
 * }
 * </pre>
 *
 * It also resolves {@link ZooKeeperEnsemble} parameters. Tests of a class share the
 * ensemble, faults included: heal it after each test that kills, stops or pauses a
 * server. Close the ensemble's clients before the class ends, so that they do not try to
 * reconnect to stopped servers.
 *
 * @since 0.1.0
 */
public class ZooKeeperEnsembleExtension extends ServerExtension<ZooKeeperEnsemble> {

	/**
	 * Create an extension for an ensemble of three servers.
	 */
	public ZooKeeperEnsembleExtension() {
		super(ZooKeeperEnsemble.class);
	}

	/**
	 * Return the client addresses of every server of the ensemble.
	 * @return the addresses, separated by commas
	 * @see ZooKeeperEnsemble#connectString()
	 */
	public String connectString() {
		return server().connectString();
	}

	@Override
	protected ZooKeeperEnsemble startServer() {
		return ZooKeeperEnsemble.start();
	}

}
