package dev.lockstarter.test.dynamodb;

import java.net.URI;

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
 * JUnit Jupiter extension that runs one {@link DynamoDbLocalServer} for a test class: started
 * before the first test, closed after the last.
 *
 * <pre class="code">
 * class MyDynamoDbTests {
 *
 *     &#64;RegisterExtension
 *     static final DynamoDbLocalServerExtension dynamoDb = new DynamoDbLocalServerExtension();
 *
 *     &#64;Test
 *     void test() {
 *         try (DynamoDbClient client = dynamoDb.server().createClient()) {
 *             ...
 *         }
 *     }
 *
 * }
 * </pre>
 *
 * It also resolves {@link DynamoDbLocalServer} parameters of constructors, lifecycle methods
 * and test methods, so it can be declared with
 * {@code @ExtendWith(DynamoDbLocalServerExtension.class)} instead. Registered on an instance
 * field, it starts a fresh server for every test. In a {@code @Nested} class, the server of the
 * enclosing class is shared.
 *
 * @since 0.1.0
 */
public class DynamoDbLocalServerExtension
		implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {

	private final boolean persistent;

	private @Nullable DynamoDbLocalServer server;

	private @Nullable String owner;

	/**
	 * Create an extension for a server that keeps its data in memory.
	 * @see DynamoDbLocalServer#start()
	 */
	public DynamoDbLocalServerExtension() {
		this(false);
	}

	private DynamoDbLocalServerExtension(boolean persistent) {
		this.persistent = persistent;
	}

	/**
	 * Create an extension for a server that keeps its data across restarts.
	 * @return the extension
	 * @see DynamoDbLocalServer#startPersistent()
	 */
	public static DynamoDbLocalServerExtension persistent() {
		return new DynamoDbLocalServerExtension(true);
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
		return parameterContext.getParameter().getType() == DynamoDbLocalServer.class;
	}

	@Override
	public DynamoDbLocalServer resolveParameter(ParameterContext parameterContext,
			ExtensionContext extensionContext) {
		return startIfNecessary(extensionContext);
	}

	/**
	 * Return the running server.
	 * @return the server
	 * @throws IllegalStateException if the server is not running, for example when called
	 * outside of a test
	 */
	public synchronized DynamoDbLocalServer server() {
		DynamoDbLocalServer server = this.server;
		Assert.state(server != null, "DynamoDB Local is not running: use it from a test, or a @BeforeAll/@BeforeEach "
				+ "method, of a class that registers this extension");
		return server;
	}

	/**
	 * Return the server's endpoint.
	 * @return the endpoint
	 * @see DynamoDbLocalServer#endpoint()
	 */
	public URI endpoint() {
		return server().endpoint();
	}

	private synchronized DynamoDbLocalServer startIfNecessary(ExtensionContext context) {
		DynamoDbLocalServer server = this.server;
		if (server == null) {
			server = this.persistent ? DynamoDbLocalServer.startPersistent() : DynamoDbLocalServer.start();
			this.server = server;
			this.owner = context.getUniqueId();
		}
		return server;
	}

	private synchronized void closeIfStartedFor(ExtensionContext context) {
		DynamoDbLocalServer server = this.server;
		if (server != null && context.getUniqueId().equals(this.owner)) {
			this.server = null;
			this.owner = null;
			server.close();
		}
	}

	@Override
	public String toString() {
		DynamoDbLocalServer server = this.server;
		return "DynamoDbLocalServerExtension[" + ((server != null) ? server : "not running") + "]";
	}

}
