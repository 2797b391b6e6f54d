package dev.lockstarter.test.redis;

import java.nio.file.Path;
import java.util.List;
import java.util.function.IntSupplier;

import javax.net.SocketFactory;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.ServerProcess;

/**
 * A {@link RedisServer} that runs as a {@code redis-server} child process, which can be
 * paused, stopped, killed and restarted.
 */
record LocalRedisProcess(ServerProcess process, @Nullable RedisTls tls) implements RedisServerBackend {

	static LocalRedisProcess start(Path binary, IntSupplier ports, @Nullable RedisTls tls, String[] extraArgs) {
		return new LocalRedisProcess(
				ServerProcess.start(new RedisServerDefinition(binary, List.of(extraArgs), tls), ports), tls);
	}

	@Override
	public String host() {
		return this.process.host();
	}

	@Override
	public int port() {
		return this.process.port();
	}

	@Override
	public SocketFactory socketFactory() {
		return (this.tls != null) ? this.tls.socketFactory() : SocketFactory.getDefault();
	}

	@Override
	public void pause() {
		this.process.pause();
	}

	@Override
	public void resume() {
		this.process.resume();
	}

	@Override
	public void stop() {
		this.process.stop();
	}

	@Override
	public void kill() {
		this.process.kill();
	}

	@Override
	public Path directory() {
		return this.process.directory();
	}

	@Override
	public void restart() {
		this.process.restart();
	}

	@Override
	public void close() {
		this.process.close();
	}

	@Override
	public String toString() {
		return this.process.toString();
	}

}
