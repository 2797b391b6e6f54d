package dev.lockstarter.test.redis;

import java.nio.file.Path;

import javax.net.SocketFactory;

/**
 * One way of running a {@link RedisServer}: a local process or a container.
 */
interface RedisServerBackend {

	String host();

	int port();

	/**
	 * Return the factory of sockets that reach the server.
	 */
	default SocketFactory socketFactory() {
		return SocketFactory.getDefault();
	}

	void pause();

	void resume();

	void stop();

	void kill();

	void restart();

	Path directory();

	void close();

}
