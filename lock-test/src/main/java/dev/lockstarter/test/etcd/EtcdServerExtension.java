package dev.lockstarter.test.etcd;

import dev.lockstarter.test.ServerExtension;

/**
 * JUnit Jupiter extension that runs one {@link EtcdServer} for a test class: started
 * before the first test, closed after the last.
 *
 * <pre class="code">
 * class MyEtcdTests {
 *
 *     &#64;RegisterExtension
 *     static final EtcdServerExtension etcd = new EtcdServerExtension();
 *
 *     &#64;Test
 *     void test() {
 *         connect(etcd.endpoint());
 *     }
 *
 * }
 * </pre>
 *
 * It also resolves {@link EtcdServer} parameters of constructors, lifecycle methods and
 * test methods. Registered on an instance field, it starts a fresh server for every test.
 * In a {@code @Nested} class, the server of the enclosing class is shared.
 *
 * @since 0.1.0
 */
public class EtcdServerExtension extends ServerExtension<EtcdServer> {

	/**
	 * Create an extension for a server with the default settings.
	 */
	public EtcdServerExtension() {
		super(EtcdServer.class);
	}

	/**
	 * Return the server's client URL.
	 * @return the URL
	 * @see EtcdServer#endpoint()
	 */
	public String endpoint() {
		return server().endpoint();
	}

	@Override
	protected EtcdServer startServer() {
		return EtcdServer.start();
	}

}
