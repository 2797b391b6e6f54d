package dev.lockstarter.test.memcached;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import org.springframework.util.Assert;

/**
 * JUnit Jupiter extension that runs one {@link MemcachedServer} for a test class: started before
 * the first test, closed after the last.
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
 * It also resolves {@link MemcachedServer} parameters of constructors, lifecycle methods and test
 * methods, so it can be declared with {@code @ExtendWith(MemcachedServerExtension.class)} instead.
 * Registered on an instance field, it starts a fresh server for every test. In a
 * {@code @Nested} class, the server of the enclosing class is shared.
 *
 * @since 0.1.0
 */
public class MemcachedServerExtension
		implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {

	private final String[] extraArgs;

	private @Nullable MemcachedServer server;

	private @Nullable String owner;

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
		Assert.notNull(extraArgs, "'extraArgs' must not be null");
		this.extraArgs = extraArgs.clone();
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		startIfNecessary(context);
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		startIfNecessary(context);
	}

	@Override
	public void afterEach(ExtensionContext context) {
		closeIfStartedFor(context);
	}

	@Override
	public void afterAll(ExtensionContext context) {
		closeIfStartedFor(context);
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.getParameter().getType() == MemcachedServer.class;
	}

	@Override
	public MemcachedServer resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return startIfNecessary(extensionContext);
	}

	/**
	 * Return the running server.
	 * @return the server
	 * @throws IllegalStateException if the server is not running, for example when called
	 * outside of a test
	 */
	public synchronized MemcachedServer server() {
		MemcachedServer server = this.server;
		Assert.state(server != null, "Memcached server is not running: use it from a test, or a @BeforeAll/@BeforeEach "
				+ "method, of a class that registers this extension");
		return server;
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

	private synchronized MemcachedServer startIfNecessary(ExtensionContext context) {
		MemcachedServer server = this.server;
		if (server == null) {
			server = MemcachedServer.start(this.extraArgs);
			this.server = server;
			this.owner = context.getUniqueId();
		}
		return server;
	}

	private synchronized void closeIfStartedFor(ExtensionContext context) {
		MemcachedServer server = this.server;
		if (server != null && context.getUniqueId().equals(this.owner)) {
			this.server = null;
			this.owner = null;
			server.close();
		}
	}

	@Override
	public String toString() {
		MemcachedServer server = this.server;
		return "MemcachedServerExtension[" + ((server != null) ? server : "not running") + "]";
	}

}
