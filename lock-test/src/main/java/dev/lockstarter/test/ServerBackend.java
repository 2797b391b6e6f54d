package dev.lockstarter.test;

import java.nio.file.Path;

import dev.lockstarter.core.Internal;

/**
 * One way of running a server of the test kit: a local process ({@link ServerProcess}),
 * which every fault can reach, or a container ({@link ServerContainer}), which cannot be
 * paused, stopped or restarted.
 *
 * @since 0.1.0
 */
@Internal
public interface ServerBackend extends AutoCloseable {

	/**
	 * Return the host the server listens on.
	 * @return the host
	 */
	String host();

	/**
	 * Return the port the server listens on.
	 * @return the port
	 */
	int port();

	/**
	 * Suspend the server: connections stay open, nothing is answered.
	 */
	void pause();

	/**
	 * Let a paused server go on.
	 */
	void resume();

	/**
	 * Stop the server gracefully; {@link #restart()} starts it again on the same port.
	 */
	void stop();

	/**
	 * Kill the server at once; {@link #restart()} starts it again on the same port.
	 */
	void kill();

	/**
	 * Start a stopped or killed server again, on the same port.
	 */
	void restart();

	/**
	 * Return the server's working directory.
	 * @return the directory
	 */
	Path directory();

	/**
	 * End the server and release what it holds.
	 */
	@Override
	void close();

}
