package dev.lockstarter.test.redis;

import java.util.List;

import dev.lockstarter.test.ServerExtension;

/**
 * JUnit Jupiter extension that runs one {@link RedisCluster} of three masters for a test
 * class: formed before the first test (about two seconds), ended after the last.
 *
 * <pre class="code">
 * class MyClusterTests {
 *
 *     &#64;RegisterExtension
 *     static final RedisClusterExtension cluster = new RedisClusterExtension();
 *
 *     &#64;DynamicPropertySource
 *     static void redisProperties(DynamicPropertyRegistry registry) {
 *         registry.add("spring.data.redis.cluster.nodes", () -&gt; String.join(",", cluster.nodeAddresses()));
 *     }
 *
 * }
 * </pre>
 *
 * It also resolves {@link RedisCluster} parameters. Close the cluster's clients (a Spring
 * context, a connection factory) before the class ends, so that they do not try to
 * reconnect to stopped nodes.
 *
 * @since 0.1.0
 */
public class RedisClusterExtension extends ServerExtension<RedisCluster> {

	/**
	 * Create an extension for a cluster of three masters.
	 */
	public RedisClusterExtension() {
		super(RedisCluster.class);
	}

	/**
	 * Return the addresses of the cluster's nodes as {@code host:port}.
	 * @return the addresses
	 * @see RedisCluster#nodeAddresses()
	 */
	public List<String> nodeAddresses() {
		return server().nodeAddresses();
	}

	@Override
	protected RedisCluster startServer() {
		return RedisCluster.start();
	}

}
