package dev.lockstarter.test.postgres;

import dev.lockstarter.test.ServerExtension;

/**
 * JUnit Jupiter extension that runs one {@link PostgresServer} for a test class: started
 * before the first test, closed after the last.
 *
 * <pre class="code">
 * class MyPostgresTests {
 *
 *     &#64;RegisterExtension
 *     static final PostgresServerExtension postgres = new PostgresServerExtension();
 *
 *     &#64;Test
 *     void test() {
 *         connect(postgres.jdbcUrl(), postgres.username());
 *     }
 *
 * }
 * </pre>
 *
 * It also resolves {@link PostgresServer} parameters of constructors, lifecycle methods
 * and test methods. Registered on an instance field, it starts a fresh server for every
 * test. In a {@code @Nested} class, the server of the enclosing class is shared.
 *
 * @since 0.1.0
 */
public class PostgresServerExtension extends ServerExtension<PostgresServer> {

	/**
	 * Create an extension for a server with the default settings.
	 */
	public PostgresServerExtension() {
		super(PostgresServer.class);
	}

	/**
	 * Return the JDBC URL of the test database.
	 * @return the URL
	 * @see PostgresServer#jdbcUrl()
	 */
	public String jdbcUrl() {
		return server().jdbcUrl();
	}

	/**
	 * Return the user to connect as, without a password.
	 * @return the user name
	 * @see PostgresServer#username()
	 */
	public String username() {
		return server().username();
	}

	@Override
	protected PostgresServer startServer() {
		return PostgresServer.start();
	}

}
