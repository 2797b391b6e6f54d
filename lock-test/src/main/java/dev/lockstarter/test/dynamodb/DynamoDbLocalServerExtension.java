package dev.lockstarter.test.dynamodb;

import java.net.URI;

import dev.lockstarter.test.ServerExtension;

/**
 * JUnit Jupiter extension that runs one {@link DynamoDbLocalServer} for a test class:
 * started before the first test, closed after the last.
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
 * It also resolves {@link DynamoDbLocalServer} parameters of constructors, lifecycle
 * methods and test methods, so it can be declared with
 * {@code @ExtendWith(DynamoDbLocalServerExtension.class)} instead. Registered on an
 * instance field, it starts a fresh server for every test. In a {@code @Nested} class,
 * the server of the enclosing class is shared.
 *
 * @since 0.1.0
 */
public class DynamoDbLocalServerExtension extends ServerExtension<DynamoDbLocalServer> {

	private final boolean persistent;

	/**
	 * Create an extension for a server that keeps its data in memory.
	 * @see DynamoDbLocalServer#start()
	 */
	public DynamoDbLocalServerExtension() {
		this(false);
	}

	private DynamoDbLocalServerExtension(boolean persistent) {
		super(DynamoDbLocalServer.class);
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

	/**
	 * Return the server's endpoint.
	 * @return the endpoint
	 * @see DynamoDbLocalServer#endpoint()
	 */
	public URI endpoint() {
		return server().endpoint();
	}

	@Override
	protected DynamoDbLocalServer startServer() {
		return this.persistent ? DynamoDbLocalServer.startPersistent() : DynamoDbLocalServer.start();
	}

}
