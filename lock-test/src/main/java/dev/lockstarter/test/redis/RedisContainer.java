package dev.lockstarter.test.redis;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * A {@link RedisServer} in a Testcontainers container. A type of its own, loaded only
 * when Testcontainers is present, to keep Testcontainers an optional dependency.
 */
final class RedisContainer implements RedisServerBackend {

	private static final int REDIS_PORT = 6379;

	private static final Set<RedisContainer> containers = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(RedisContainer::stopAll, "redis-server-cleanup"));
	}

	private final GenericContainer<?> container;

	private RedisContainer(GenericContainer<?> container) {
		this.container = container;
	}

	static boolean isDockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

	static RedisContainer start(String[] extraArgs) {
		List<String> command = new ArrayList<>(List.of("redis-server", "--save", "", "--appendonly", "no"));
		command.addAll(List.of(extraArgs));
		GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(RedisServer.IMAGE))
			.withExposedPorts(REDIS_PORT)
			.withCommand(command.toArray(String[]::new))
			.waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1));
		container.start();
		RedisContainer server = new RedisContainer(container);
		containers.add(server);
		return server;
	}

	@Override
	public String host() {
		return this.container.getHost();
	}

	@Override
	public int port() {
		return this.container.getMappedPort(REDIS_PORT);
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
	public Path directory() {
		throw unsupported("reach the files of");
	}

	@Override
	public void restart() {
		throw unsupported("restart");
	}

	private UnsupportedOperationException unsupported(String operation) {
		return new UnsupportedOperationException("Cannot " + operation + " a Redis server that runs in a "
				+ "container; install a local redis-server (for example 'apt-get install redis-server') so that "
				+ "tests that " + operation + " the server run against a local process");
	}

	@Override
	public void close() {
		containers.remove(this);
		this.container.stop();
	}

	private static void stopAll() {
		for (RedisContainer container : containers) {
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
		return "container " + RedisServer.IMAGE + " at " + host() + ":" + port();
	}

}
