package dev.lockstarter.test;

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
 * Base of the JUnit Jupiter extensions that run one real server for a test class (or, on
 * an instance field, for each test): the server is started by the first callback or
 * parameter that needs it, and closed by the matching {@code after} callback of the
 * context that started it, so {@code @Nested} classes share the server of their enclosing
 * class. The extension also resolves parameters of the server's type.
 *
 * @param <S> the server type
 * @since 0.1.0
 */
public abstract class ServerExtension<S extends AutoCloseable>
		implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {

	private final Class<S> serverType;

	private @Nullable S server;

	private @Nullable String owner;

	/**
	 * Create a new extension.
	 * @param serverType the server type, resolved as a parameter
	 */
	protected ServerExtension(Class<S> serverType) {
		this.serverType = serverType;
	}

	/**
	 * Start a new server.
	 * @return the running server
	 */
	protected abstract S startServer();

	@Override
	public void beforeAll(ExtensionContext context) {
		startIfNecessary(context);
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		startIfNecessary(context);
	}

	@Override
	public void afterEach(ExtensionContext context) throws Exception {
		closeIfStartedFor(context);
	}

	@Override
	public void afterAll(ExtensionContext context) throws Exception {
		closeIfStartedFor(context);
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.getParameter().getType() == this.serverType;
	}

	@Override
	public S resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return startIfNecessary(extensionContext);
	}

	/**
	 * Return the running server.
	 * @return the server
	 * @throws IllegalStateException if the server is not running, for example when called
	 * outside of a test
	 */
	public synchronized S server() {
		S running = this.server;
		Assert.state(running != null, () -> this.serverType.getSimpleName() + " is not running: use it from a test, "
				+ "or a @BeforeAll/@BeforeEach method, of a class that registers this extension");
		return running;
	}

	private synchronized S startIfNecessary(ExtensionContext context) {
		S running = this.server;
		if (running == null) {
			running = startServer();
			this.server = running;
			this.owner = context.getUniqueId();
		}
		return running;
	}

	private synchronized void closeIfStartedFor(ExtensionContext context) throws Exception {
		S running = this.server;
		if (running != null && context.getUniqueId().equals(this.owner)) {
			this.server = null;
			this.owner = null;
			running.close();
		}
	}

	@Override
	public String toString() {
		S running = this.server;
		return getClass().getSimpleName() + "[" + ((running != null) ? running : "not running") + "]";
	}

}
