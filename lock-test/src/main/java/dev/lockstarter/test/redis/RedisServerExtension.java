package dev.lockstarter.test.redis;

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
 * JUnit Jupiter extension that runs one {@link RedisServer} for a test class: started before
 * the first test, closed after the last.
 *
 * <pre class="code">
 * class MyRedisTests {
 *
 *     &#64;RegisterExtension
 *     static final RedisServerExtension redis = new RedisServerExtension();
 *
 *     &#64;Test
 *     void test() {
 *         connect(redis.host(), redis.port());
 *     }
 *
 * }
 * </pre>
 *
 * It also resolves {@link RedisServer} parameters of constructors, lifecycle methods and test
 * methods, so it can be declared with {@code @ExtendWith(RedisServerExtension.class)} instead.
 * Registered on an instance field, it starts a fresh server for every test. In a
 * {@code @Nested} class, the server of the enclosing class is shared.
 *
 * @since 0.1.0
 */
public class RedisServerExtension
		implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {

	private final String[] extraArgs;

	private @Nullable RedisServer server;

	private @Nullable String owner;

	/**
	 * Create an extension for a server with the default settings.
	 */
	public RedisServerExtension() {
		this(new String[0]);
	}

	/**
	 * Create an extension for a server with additional {@code redis-server} arguments.
	 * @param extraArgs arguments appended to the command line
	 * @see RedisServer#start(String...)
	 */
	public RedisServerExtension(String... extraArgs) {
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
		return parameterContext.getParameter().getType() == RedisServer.class;
	}

	@Override
	public RedisServer resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return startIfNecessary(extensionContext);
	}

	/**
	 * Return the running server.
	 * @return the server
	 * @throws IllegalStateException if the server is not running, for example when called
	 * outside of a test
	 */
	public synchronized RedisServer server() {
		RedisServer server = this.server;
		Assert.state(server != null, "Redis server is not running: use it from a test, or a @BeforeAll/@BeforeEach "
				+ "method, of a class that registers this extension");
		return server;
	}

	/**
	 * Return the host the server listens on.
	 * @return the host
	 * @see RedisServer#host()
	 */
	public String host() {
		return server().host();
	}

	/**
	 * Return the port the server listens on.
	 * @return the port
	 * @see RedisServer#port()
	 */
	public int port() {
		return server().port();
	}

	private synchronized RedisServer startIfNecessary(ExtensionContext context) {
		RedisServer server = this.server;
		if (server == null) {
			server = RedisServer.start(this.extraArgs);
			this.server = server;
			this.owner = context.getUniqueId();
		}
		return server;
	}

	private synchronized void closeIfStartedFor(ExtensionContext context) {
		RedisServer server = this.server;
		if (server != null && context.getUniqueId().equals(this.owner)) {
			this.server = null;
			this.owner = null;
			server.close();
		}
	}

	@Override
	public String toString() {
		RedisServer server = this.server;
		return "RedisServerExtension[" + ((server != null) ? server : "not running") + "]";
	}

}
