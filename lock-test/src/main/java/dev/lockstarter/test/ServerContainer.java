package dev.lockstarter.test;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

import dev.lockstarter.core.Internal;

/**
 * A server of the test kit in a Testcontainers container, used when no local binary is
 * found and a Docker engine is. It can only be reached and closed: the faults that need a
 * local process (pause, stop, kill, restart) fail with a message that says what to
 * install instead. Loaded only when Testcontainers is on the classpath, to keep it an
 * optional dependency.
 *
 * @since 0.1.0
 */
@Internal
public final class ServerContainer implements ServerBackend {

	private static final Set<ServerContainer> running = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(ServerContainer::stopAll, "server-container-cleanup"));
	}

	private final GenericContainer<?> container;

	private final int containerPort;

	private final String server;

	private final String localInstall;

	private ServerContainer(GenericContainer<?> container, int containerPort, String server, String localInstall) {
		this.container = container;
		this.containerPort = containerPort;
		this.server = server;
		this.localInstall = localInstall;
	}

	/**
	 * Whether a Docker engine can be reached.
	 * @return whether containers can be started
	 */
	public static boolean isDockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

	/**
	 * Start a container and wait until it is ready.
	 * @param image the image
	 * @param containerPort the port the server listens on inside the container
	 * @param command the server's command line
	 * @param readyLogPattern a pattern of the log line that says the server is ready, or
	 * {@code null} to wait until the port listens
	 * @param server the server, for messages, such as {@code "a Redis server"}
	 * @param localInstall what to install to run the server locally instead, for
	 * messages, such as
	 * {@code "redis-server (for example 'apt-get install redis-server')"}
	 * @return the started container
	 */
	public static ServerContainer start(String image, int containerPort, List<String> command,
			@Nullable String readyLogPattern, String server, String localInstall) {
		GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image))
			.withExposedPorts(containerPort)
			.withCommand(command.toArray(String[]::new))
			.waitingFor((readyLogPattern != null) ? Wait.forLogMessage(readyLogPattern, 1) : Wait.forListeningPort());
		container.start();
		ServerContainer started = new ServerContainer(container, containerPort, server, localInstall);
		running.add(started);
		return started;
	}

	@Override
	public String host() {
		return this.container.getHost();
	}

	@Override
	public int port() {
		return this.container.getMappedPort(this.containerPort);
	}

	@Override
	public void pause() {
		throw unsupported("pause");
	}

	@Override
	public void resume() {
		throw unsupported("resume");
	}

	@Override
	public void stop() {
		throw unsupported("stop");
	}

	@Override
	public void kill() {
		throw unsupported("kill");
	}

	@Override
	public void restart() {
		throw unsupported("restart");
	}

	@Override
	public Path directory() {
		throw unsupported("reach the files of");
	}

	private UnsupportedOperationException unsupported(String operation) {
		return new UnsupportedOperationException("Cannot " + operation + " " + this.server
				+ " that runs in a container; install a local " + this.localInstall + " so that tests that " + operation
				+ " the server run against a local process");
	}

	@Override
	public void close() {
		running.remove(this);
		this.container.stop();
	}

	private static void stopAll() {
		for (ServerContainer container : running) {
			try {
				container.close();
			}
			catch (RuntimeException ex) {
				// Best effort while the JVM exits
			}
		}
	}

	@Override
	public String toString() {
		return "container " + this.container.getDockerImageName() + " at " + host() + ":" + port();
	}

}
