package dev.lockstarter.test.mariadb;

import dev.lockstarter.test.ServerExtension;

/**
 * JUnit Jupiter extension that runs one {@link MariaDbServer} for a test class: started
 * before the first test, closed after the last.
 *
 * <pre class="code">
 * class MyMariaDbTests {
 *
 *     &#64;RegisterExtension
 *     static final MariaDbServerExtension mariadb = new MariaDbServerExtension();
 *
 *     &#64;Test
 *     void test() {
 *         connect(mariadb.jdbcUrl(), mariadb.username(), mariadb.password());
 *     }
 *
 * }
 * </pre>
 *
 * It also resolves {@link MariaDbServer} parameters of constructors, lifecycle methods
 * and test methods. Registered on an instance field, it starts a fresh server for every
 * test. In a {@code @Nested} class, the server of the enclosing class is shared.
 *
 * @since 0.1.0
 */
public class MariaDbServerExtension extends ServerExtension<MariaDbServer> {

	/**
	 * Create an extension for a server with the default settings.
	 */
	public MariaDbServerExtension() {
		super(MariaDbServer.class);
	}

	/**
	 * Return the JDBC URL of the test database.
	 * @return the URL
	 * @see MariaDbServer#jdbcUrl()
	 */
	public String jdbcUrl() {
		return server().jdbcUrl();
	}

	/**
	 * Return the user to connect as.
	 * @return the user name
	 * @see MariaDbServer#username()
	 */
	public String username() {
		return server().username();
	}

	/**
	 * Return the user's password.
	 * @return the password
	 * @see MariaDbServer#password()
	 */
	public String password() {
		return server().password();
	}

	@Override
	protected MariaDbServer startServer() {
		return MariaDbServer.start();
	}

}
