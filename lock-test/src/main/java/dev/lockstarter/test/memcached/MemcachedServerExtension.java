package dev.lockstarter.test.memcached;

import dev.lockstarter.test.ServerExtension;
import org.springframework.util.Assert;

/**
 * JUnit Jupiter extension that runs one {@link MemcachedServer} for a test class: started
 * before the first test, closed after the last.
 *
 * <pre class="code">
 * class MyMemcachedTests {
 *
 *     &#64;RegisterExtension
 *     static final MemcachedServerExtension memcached = new MemcachedServerExtension();
 *
 *     &#64;Test
 *     void test() {
 *         connect(memcached.address());
 *     }
 *
 * }
 * </pre>
 *
 * It also resolves {@link MemcachedServer} parameters of constructors, lifecycle methods
 * and test methods, so it can be declared with
 * {@code @ExtendWith(MemcachedServerExtension.class)} instead. Registered on an instance
 * field, it starts a fresh server for every test. In a {@code @Nested} class, the server
 * of the enclosing class is shared.
 *
 * @since 0.1.0
 */
public class MemcachedServerExtension extends ServerExtension<MemcachedServer> {

	private final String[] extraArgs;

	/**
	 * Create an extension for a server with the default settings.
	 */
	public MemcachedServerExtension() {
		this(new String[0]);
	}

	/**
	 * Create an extension for a server with additional {@code memcached} arguments.
	 * @param extraArgs arguments appended to the command line
	 * @see MemcachedServer#start(String...)
	 */
	public MemcachedServerExtension(String... extraArgs) {
		super(MemcachedServer.class);
		Assert.notNull(extraArgs, "'extraArgs' must not be null");
		this.extraArgs = extraArgs.clone();
	}

	/**
	 * Return the host the server listens on.
	 * @return the host
	 * @see MemcachedServer#host()
	 */
	public String host() {
		return server().host();
	}

	/**
	 * Return the port the server listens on.
	 * @return the port
	 * @see MemcachedServer#port()
	 */
	public int port() {
		return server().port();
	}

	/**
	 * Return the server's address as {@code host:port}.
	 * @return the address
	 * @see MemcachedServer#address()
	 */
	public String address() {
		return server().address();
	}

	@Override
	protected MemcachedServer startServer() {
		return MemcachedServer.start(this.extraArgs);
	}

}
