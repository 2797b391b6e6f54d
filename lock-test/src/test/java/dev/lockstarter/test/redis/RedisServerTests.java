package dev.lockstarter.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link RedisServer}.
 */
class RedisServerTests {

	@Test
	void startedServerAnswersPingOnLoopback() {
		try (RedisServer server = RedisServer.start()) {
			assertThat(server.host()).isEqualTo("127.0.0.1");
			assertThat(server.port()).isPositive();
			assertThat(server.url()).isEqualTo("redis://127.0.0.1:" + server.port());
			assertThat(server.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void serverKeepsNoDataOnDisk() {
		try (RedisServer server = RedisServer.start()) {
			assertThat(server.command("CONFIG", "GET", "save")).isEqualTo("save\n");
			assertThat(server.command("CONFIG", "GET", "appendonly")).isEqualTo("appendonly\nno");
		}
	}

	@Test
	void commandDecodesRepliesToText() {
		try (RedisServer server = RedisServer.start()) {
			String value = "ünïcödé\r\nwith a line break";
			assertThat(server.command("SET", "key", value)).isEqualTo("OK");
			assertThat(server.command("GET", "key")).isEqualTo(value);
			assertThat(server.command("GET", "missing")).isNull();
			assertThat(server.command("INCR", "counter")).isEqualTo("1");
			server.command("RPUSH", "list", "a", "b", "c");
			assertThat(server.command("LRANGE", "list", "0", "-1")).isEqualTo("a\nb\nc");
			assertThat(server.command("INFO", "server")).contains("redis_version:");
		}
	}

	@Test
	void commandThrowsOnAnErrorReply() {
		try (RedisServer server = RedisServer.start()) {
			assertThatIllegalStateException().isThrownBy(() -> server.command("NO-SUCH-COMMAND"))
				.withMessageContaining("unknown command");
		}
	}

	@Test
	void extraArgumentsConfigureTheServer() {
		try (RedisServer server = RedisServer.start("--maxmemory", "10mb", "--maxmemory-policy", "noeviction")) {
			assertThat(server.command("CONFIG", "GET", "maxmemory")).isEqualTo("maxmemory\n10485760");
			assertThat(server.command("CONFIG", "GET", "maxmemory-policy")).isEqualTo("maxmemory-policy\nnoeviction");
		}
	}

	@Test
	void invalidArgumentsFailWithTheServersOutput() {
		assertThatIllegalStateException().isThrownBy(() -> RedisServer.start("--no-such-option", "x"))
			.withMessageContaining("exited with code")
			.withMessageContaining("no-such-option");
	}

	@Test
	void serversRunSideBySideOnDistinctPorts() {
		try (RedisServer first = RedisServer.start(); RedisServer second = RedisServer.start()) {
			assertThat(first.port()).isNotEqualTo(second.port());
			first.command("SET", "key", "first");
			assertThat(second.command("GET", "key")).isNull();
		}
	}

	@Test
	void pausedServerDoesNotAnswerUntilResumed() {
		try (RedisServer server = RedisServer.start()) {
			server.pause();
			assertThatExceptionOfType(UncheckedIOException.class)
				.isThrownBy(() -> server.command(Duration.ofMillis(200), "PING"))
				.withCauseInstanceOf(SocketTimeoutException.class);
			server.resume();
			assertThat(server.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void pausedServerCanBeClosedPromptly() {
		RedisServer server = RedisServer.start();
		server.pause();
		long start = System.nanoTime();
		server.close();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
		assertRefusesConnections(server);
	}

	@Test
	void stoppedServerRefusesConnectionsUntilRestarted() {
		try (RedisServer server = RedisServer.start()) {
			int port = server.port();
			server.stop();
			assertRefusesConnections(server);
			server.restart();
			assertThat(server.port()).isEqualTo(port);
			assertThat(server.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void restartedServerListensOnTheSamePortAndStartsEmpty() {
		try (RedisServer server = RedisServer.start()) {
			int port = server.port();
			server.command("SET", "key", "value");
			server.restart();
			assertThat(server.port()).isEqualTo(port);
			assertThat(server.command("GET", "key")).isNull();
			assertThat(server.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void pausedServerCanBeRestarted() {
		try (RedisServer server = RedisServer.start()) {
			server.pause();
			server.restart();
			assertThat(server.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void closeEndsTheServerAndDeletesItsDirectory() {
		RedisServer server = RedisServer.start();
		String[] dir = server.command("CONFIG", "GET", "dir").split("\n");
		Path directory = Path.of(dir[1]);
		assertThat(directory).isDirectory();
		server.close();
		assertRefusesConnections(server);
		assertThat(Files.exists(directory)).isFalse();
		server.close();
	}

	@Test
	void closedServerCannotBeRestarted() {
		RedisServer server = RedisServer.start();
		server.close();
		assertThatIllegalStateException().isThrownBy(server::restart).withMessageContaining("closed");
	}

	@Test
	void portTakenBeforeTheServerBindsItIsRetriedWithAnotherPort() throws IOException {
		try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
			Iterator<Integer> ports = List.of(taken.getLocalPort(), freePort()).iterator();
			try (RedisServer server = RedisServer.startLocal(binary(), ports::next)) {
				assertThat(server.port()).isNotEqualTo(taken.getLocalPort());
				assertThat(server.command("PING")).isEqualTo("PONG");
			}
		}
	}

	@Test
	void portTakenByAnotherRedisServerIsRetriedWithAnotherPort() throws IOException {
		try (RedisServer other = RedisServer.start()) {
			Iterator<Integer> ports = List.of(other.port(), freePort()).iterator();
			try (RedisServer server = RedisServer.startLocal(binary(), ports::next)) {
				assertThat(server.port()).isNotEqualTo(other.port());
				server.command("SET", "key", "value");
				assertThat(other.command("GET", "key")).isNull();
			}
		}
	}

	@Test
	void startFailsClearlyWhenEveryPortIsTaken() throws IOException {
		try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
			assertThatIllegalStateException().isThrownBy(() -> RedisServer.startLocal(binary(), taken::getLocalPort))
				.withMessageContaining("ports were taken by other processes");
		}
	}

	@Test
	void configuredBinaryThatDoesNotExistFailsClearly() {
		String previous = System.getProperty(RedisServer.BINARY_PROPERTY);
		System.setProperty(RedisServer.BINARY_PROPERTY, "/no/such/redis-server");
		try {
			assertThatIllegalStateException().isThrownBy(RedisServer::start)
				.withMessageContaining("/no/such/redis-server")
				.withMessageContaining("not an executable file");
		}
		finally {
			if (previous != null) {
				System.setProperty(RedisServer.BINARY_PROPERTY, previous);
			}
			else {
				System.clearProperty(RedisServer.BINARY_PROPERTY);
			}
		}
	}

	private static Path binary() {
		Path binary = RedisServer.findBinary();
		assertThat(binary).as("redis-server binary").isNotNull();
		return binary;
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
			return socket.getLocalPort();
		}
	}

	private static void assertRefusesConnections(RedisServer server) {
		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> server.command("PING"))
			.withCauseInstanceOf(ConnectException.class);
	}

}
