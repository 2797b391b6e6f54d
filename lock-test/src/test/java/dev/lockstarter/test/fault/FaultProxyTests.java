package dev.lockstarter.test.fault;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link FaultProxy}, in front of a real Redis server spoken to in its inline
 * protocol.
 */
class FaultProxyTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private FaultProxy proxy;

	@BeforeEach
	void startProxy() {
		redis.server().command("FLUSHALL");
		this.proxy = FaultProxy.start(redis.host(), redis.port());
	}

	@AfterEach
	void closeProxy() {
		this.proxy.close();
	}

	@Test
	void forwardsBothWaysWithoutFaults() throws IOException {
		try (Socket socket = connect()) {
			assertThat(send(socket, "PING")).isEqualTo("+PONG");
			assertThat(send(socket, "SET key value")).isEqualTo("+OK");
			assertThat(redis.server().command("GET", "key")).isEqualTo("value");
		}
		assertThat(this.proxy.host()).isEqualTo("127.0.0.1");
		assertThat(this.proxy.acceptedConnections()).isEqualTo(1);
	}

	@Test
	void latencyDelaysTheReplyAndLosesNothing() throws IOException {
		try (Socket socket = connect()) {
			this.proxy.latency(Duration.ofMillis(300));
			long started = System.nanoTime();
			assertThat(send(socket, "PING")).isEqualTo("+PONG");
			// Both the request and the reply are delayed
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(600));
			this.proxy.latency(Duration.ZERO);
			assertThat(send(socket, "PING")).isEqualTo("+PONG");
		}
	}

	@Test
	void blackholeNeverForwardsTheRequestAndHealClosesTheConnection() throws IOException {
		try (Socket socket = connect()) {
			assertThat(send(socket, "PING")).isEqualTo("+PONG");
			this.proxy.blackhole();
			write(socket, "SET key value");
			assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(() -> readLine(socket));
			assertThat(redis.server().command("EXISTS", "key")).isEqualTo("0");
			this.proxy.heal();
			assertClosed(socket);
		}
		try (Socket socket = connect()) {
			assertThat(send(socket, "PING")).isEqualTo("+PONG");
		}
	}

	@Test
	void blackholeAcceptsNewConnectionsButAnswersNothing() throws IOException {
		this.proxy.blackhole();
		try (Socket socket = connect()) {
			write(socket, "PING");
			assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(() -> readLine(socket));
		}
	}

	@Test
	void droppedRepliesLeaveTheRequestAppliedAndUnanswered() throws IOException {
		try (Socket socket = connect()) {
			this.proxy.dropReplies();
			write(socket, "SET key value");
			assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(() -> readLine(socket));
			assertThat(redis.server().command("GET", "key")).isEqualTo("value");
			this.proxy.heal();
			assertClosed(socket);
		}
		try (Socket socket = connect()) {
			assertThat(send(socket, "GET key")).isEqualTo("$5");
		}
	}

	@Test
	void refuseResetsOpenAndNewConnectionsUntilHealed() throws IOException {
		try (Socket open = connect()) {
			assertThat(send(open, "PING")).isEqualTo("+PONG");
			this.proxy.refuse();
			assertClosed(open);
			assertThat(this.proxy.openConnections()).isZero();
		}
		try (Socket refused = connect()) {
			assertClosed(refused);
		}
		this.proxy.heal();
		try (Socket socket = connect()) {
			assertThat(send(socket, "PING")).isEqualTo("+PONG");
			assertThat(this.proxy.openConnections()).isEqualTo(1);
		}
	}

	@Test
	void healKeepsConnectionsThatLostNothing() throws IOException {
		try (Socket socket = connect()) {
			this.proxy.latency(Duration.ofMillis(50));
			assertThat(send(socket, "PING")).isEqualTo("+PONG");
			this.proxy.heal();
			assertThat(send(socket, "PING")).isEqualTo("+PONG");
		}
	}

	@Test
	void closedProxyRefusesConnections() throws IOException {
		long accepted = this.proxy.acceptedConnections();
		this.proxy.close();
		String reply;
		try (Socket socket = connect()) {
			// Refused as a rule. Rarely, the kernel makes the freed port the client's own
			// ephemeral port, and the socket connects to itself (a TCP self-connect) and
			// echoes what it sends: that is the only connection allowed here
			assertThat(socket.getLocalPort()).as("only a self-connect may connect").isEqualTo(socket.getPort());
			write(socket, "PING");
			reply = readLine(socket);
		}
		catch (IOException ex) {
			reply = null;
		}
		assertThat(reply).isNotEqualTo("+PONG");
		assertThat(this.proxy.acceptedConnections()).isEqualTo(accepted);
	}

	@Test
	void negativeLatencyIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.proxy.latency(Duration.ofMillis(-1)))
			.withMessage("'latency' must not be negative");
	}

	private Socket connect() throws IOException {
		Socket socket = new Socket(this.proxy.host(), this.proxy.port());
		socket.setSoTimeout(1000);
		return socket;
	}

	private static String send(Socket socket, String command) throws IOException {
		write(socket, command);
		return readLine(socket);
	}

	private static void write(Socket socket, String command) throws IOException {
		socket.getOutputStream().write((command + "\r\n").getBytes(StandardCharsets.UTF_8));
		socket.getOutputStream().flush();
	}

	private static String readLine(Socket socket) throws IOException {
		InputStream in = socket.getInputStream();
		StringBuilder line = new StringBuilder();
		int c;
		while ((c = in.read()) != '\n') {
			if (c == -1) {
				throw new IOException("Connection closed");
			}
			if (c != '\r') {
				line.append((char) c);
			}
		}
		return line.toString();
	}

	private static void assertClosed(Socket socket) throws IOException {
		socket.setSoTimeout(3000);
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> {
			write(socket, "PING");
			readLine(socket);
		}).isNotInstanceOf(SocketTimeoutException.class);
	}

}
