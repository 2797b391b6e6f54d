package dev.lockstarter.test.redis;

import dev.lockstarter.test.ServerExtension;
import org.springframework.util.Assert;

/**
 * JUnit Jupiter extension that runs one {@link RedisServer} for a test class: started
 * before the first test, closed after the last.
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
 * It also resolves {@link RedisServer} parameters of constructors, lifecycle methods and
 * test methods, so it can be declared with
 * {@code @ExtendWith(RedisServerExtension.class)} instead. Registered on an instance
 * field, it starts a fresh server for every test. In a {@code @Nested} class, the server
 * of the enclosing class is shared.
 *
 * @since 0.1.0
 */
public class RedisServerExtension extends ServerExtension<RedisServer> {

	private final String[] extraArgs;

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
		super(RedisServer.class);
		Assert.notNull(extraArgs, "'extraArgs' must not be null");
		this.extraArgs = extraArgs.clone();
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

	@Override
	protected RedisServer startServer() {
		return RedisServer.start(this.extraArgs);
	}

}
