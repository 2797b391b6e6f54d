package dev.lockstarter.test.memcached;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link MemcachedServer}.
 */
class MemcachedServerTests {

	@Test
	void startedServerAnswersOnLoopbackWithoutUdp() {
		try (MemcachedServer server = MemcachedServer.start()) {
			assertThat(server.host()).isEqualTo("127.0.0.1");
			assertThat(server.address()).isEqualTo("127.0.0.1:" + server.port());
			assertThat(server.command("version").get(0)).startsWith("VERSION ");
			assertThat(server.stats()).containsKey("pid").containsEntry("curr_items", "0");
			assertThat(server.command("stats settings")).contains("STAT udpport 0", "STAT maxbytes 67108864",
					"STAT tcpport " + server.port());
		}
	}

	@Test
	void extraArgumentsConfigureTheServer() {
		try (MemcachedServer server = MemcachedServer.start("-M")) {
			assertThat(server.command("stats settings")).contains("STAT evictions off");
		}
	}

	@Test
	void invalidArgumentsFailWithTheServersOutput() {
		assertThatIllegalStateException().isThrownBy(() -> MemcachedServer.start("--no-such-option"))
			.withMessageContaining("exited with code")
			.withMessageContaining("no-such-option");
	}

	@Test
	void serversRunSideBySideOnDistinctPorts() {
		try (MemcachedServer first = MemcachedServer.start(); MemcachedServer second = MemcachedServer.start()) {
			assertThat(first.port()).isNotEqualTo(second.port());
			set(first, "key", "first");
			assertThat(second.command("get key")).containsExactly("END");
		}
	}

	@Test
	void pausedServerDoesNotAnswerUntilResumed() {
		try (MemcachedServer server = MemcachedServer.start()) {
			server.pause();
			assertThatExceptionOfType(IOException.class)
				.isThrownBy(() -> MemcachedText.send(server.host(), server.port(), Duration.ofMillis(200), "version"))
				.isInstanceOf(SocketTimeoutException.class);
			server.resume();
			assertThat(server.command("version").get(0)).startsWith("VERSION ");
		}
	}

	@Test
	void restartedServerListensOnTheSamePortAndStartsEmpty() {
		try (MemcachedServer server = MemcachedServer.start()) {
			int port = server.port();
			set(server, "key", "value");
			server.stop();
			assertRefusesConnections(server);
			server.restart();
			assertThat(server.port()).isEqualTo(port);
			assertThat(server.command("get key")).containsExactly("END");
		}
	}

	@Test
	void pausedServerCanBeRestarted() {
		try (MemcachedServer server = MemcachedServer.start()) {
			server.pause();
			server.restart();
			assertThat(server.command("version").get(0)).startsWith("VERSION ");
		}
	}

	@Test
	void closeEndsTheServerAndCannotBeUndone() {
		MemcachedServer server = MemcachedServer.start();
		server.close();
		assertRefusesConnections(server);
		server.close();
		assertThatIllegalStateException().isThrownBy(server::restart).withMessageContaining("closed");
	}

	@Test
	void portTakenBeforeTheServerBindsItIsRetriedWithAnotherPort() throws IOException {
		try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
			Iterator<Integer> ports = List.of(taken.getLocalPort(), freePort()).iterator();
			try (MemcachedServer server = MemcachedServer.startLocal(binary(), ports::next)) {
				assertThat(server.port()).isNotEqualTo(taken.getLocalPort());
				assertThat(server.command("version").get(0)).startsWith("VERSION ");
			}
		}
	}

	@Test
	void portTakenByAnotherMemcachedIsRetriedWithAnotherPort() throws IOException {
		try (MemcachedServer other = MemcachedServer.start()) {
			Iterator<Integer> ports = List.of(other.port(), freePort()).iterator();
			try (MemcachedServer server = MemcachedServer.startLocal(binary(), ports::next)) {
				assertThat(server.port()).isNotEqualTo(other.port());
				set(server, "key", "value");
				assertThat(other.command("get key")).containsExactly("END");
			}
		}
	}

	@Test
	void configuredBinaryThatDoesNotExistFailsClearly() {
		String previous = System.getProperty(MemcachedServer.BINARY_PROPERTY);
		System.setProperty(MemcachedServer.BINARY_PROPERTY, "/no/such/memcached");
		try {
			assertThatIllegalStateException().isThrownBy(MemcachedServer::start)
				.withMessageContaining("/no/such/memcached")
				.withMessageContaining("not an executable file");
		}
		finally {
			if (previous != null) {
				System.setProperty(MemcachedServer.BINARY_PROPERTY, previous);
			}
			else {
				System.clearProperty(MemcachedServer.BINARY_PROPERTY);
			}
		}
	}

	private static void set(MemcachedServer server, String key, String value) {
		// The text protocol's storage command spans two lines, which command() refuses
		try (java.net.Socket socket = new java.net.Socket(server.host(), server.port())) {
			socket.setSoTimeout(5000);
			socket.getOutputStream()
				.write(("set " + key + " 0 0 " + value.length() + "\r\n" + value + "\r\n").getBytes());
			byte[] reply = new byte[8];
			assertThat(new String(reply, 0, socket.getInputStream().read(reply))).startsWith("STORED");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static Path binary() {
		Path binary = MemcachedServer.findBinary();
		assertThat(binary).as("memcached binary").isNotNull();
		return binary;
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
			return socket.getLocalPort();
		}
	}

	private static void assertRefusesConnections(MemcachedServer server) {
		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> server.command("version"))
			.withCauseInstanceOf(ConnectException.class);
	}

}
