package dev.lockstarter.test.fault;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests for {@link NamespaceNetwork}: a listener on one host is reached, or not, from
 * another host and from this JVM. They need a machine that allows network namespaces
 * (root), as the CI machines do.
 */
class NamespaceNetworkTests {

	private static final int PORT = 7070;

	private static NamespaceNetwork network;

	private static Process listener;

	@BeforeAll
	static void startAListenerOnTheSecondHost() throws IOException {
		assumeTrue(NamespaceNetwork.isSupported(), "network namespaces need root and 'ip' from iproute2");
		network = NamespaceNetwork.create(2);
		// Accepts on every address of host 1, answering every connection with one line
		String accept = "import socket\ns = socket.create_server(('0.0.0.0', " + PORT + "))\nwhile True:\n"
				+ "    c, _ = s.accept()\n    c.sendall(b'hello\\n')\n    c.close()\n";
		listener = new ProcessBuilder(network.command(1, List.of("python3", "-c", accept))).inheritIO().start();
	}

	@AfterAll
	static void deleteTheNetwork() {
		if (listener != null) {
			listener.destroyForcibly();
		}
		if (network != null) {
			network.close();
		}
	}

	@Test
	void hostsHaveAClientAndAPeerAddressEach() {
		assertThat(network.size()).isEqualTo(2);
		assertThat(List.of(network.clientAddress(0), network.clientAddress(1), network.peerAddress(0),
				network.peerAddress(1)))
			.doesNotHaveDuplicates()
			.allMatch((address) -> address.startsWith("10.23"));
		assertThat(network.command(1, List.of("etcd"))).endsWith("etcd").contains("netns", "exec");
		assertThatIllegalArgumentException().isThrownBy(() -> network.clientAddress(2));
	}

	@Test
	void isolatedHostIsCutOffFromItsPeersAndStillReachedByClients() throws Exception {
		awaitAnswer(network.clientAddress(1));
		assertThat(peerReachesPeer()).as("host 0 reaches host 1 on the peer bridge").isTrue();
		network.isolate(1);
		try {
			assertThat(network.isIsolated(1)).isTrue();
			assertThat(peerReachesPeer()).as("host 0 reaches isolated host 1 on the peer bridge").isFalse();
			assertThat(answer(network.clientAddress(1))).as("this JVM reaches isolated host 1").isEqualTo("hello");
		}
		finally {
			network.reconnect(1);
		}
		assertThat(network.isIsolated(1)).isFalse();
		assertThat(peerReachesPeer()).as("host 0 reaches host 1 again").isTrue();
	}

	@Test
	void closedNetworkLeavesNoNamespaceBehind() throws Exception {
		NamespaceNetwork other = NamespaceNetwork.create(1);
		String namespace = other.command(0, List.of()).get(3);
		assertThat(namespaces()).contains(namespace);
		assertThat(other.clientAddress(0)).isNotEqualTo(network.clientAddress(0));
		other.close();
		other.close();
		assertThat(namespaces()).doesNotContain(namespace);
	}

	/** Whether host 0 connects to host 1's peer address within a second. */
	private static boolean peerReachesPeer() throws Exception {
		String connect = "import socket\nsocket.create_connection(('" + network.peerAddress(1) + "', " + PORT
				+ "), timeout=1).recv(6)\n";
		Process process = new ProcessBuilder(network.command(0, List.of("python3", "-c", connect)))
			.redirectErrorStream(true)
			.start();
		assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
		return process.exitValue() == 0;
	}

	@Test
	void aNetworkIsMadeAgainWhileAProcessRunsOnInTheNamespaceOfTheOneBefore() throws Exception {
		// A namespace lives on as long as a process runs in it, and with it the host's
		// end of each link into it; deleting the network frees its index for the next
		// network, of this JVM or of another, which makes links of the same names
		NamespaceNetwork before = NamespaceNetwork.create(1);
		String made = before.toString();
		Process leftover = new ProcessBuilder(before.command(0, List.of("sh", "-c", "echo inside; exec sleep 60")))
			.start();
		try {
			assertThat(new String(leftover.getInputStream().readNBytes(6), StandardCharsets.US_ASCII))
				.isEqualTo("inside");
			before.close();
			try (NamespaceNetwork again = NamespaceNetwork.create(1)) {
				assumeTrue(again.toString().equals(made), "another JVM took the index that the network freed");
				assertThat(again.clientAddress(0)).isEqualTo(before.clientAddress(0));
			}
		}
		finally {
			leftover.destroyForcibly();
		}
	}

	private static String namespaces() throws Exception {
		Process process = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
		assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
		return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
	}

	private static void awaitAnswer(String address) {
		await().alias("listener answering at " + address)
			.atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(50))
			.ignoreExceptionsInstanceOf(IOException.class)
			.until(() -> answer(address) != null);
	}

	private static String answer(String address) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(address, PORT), 1000);
			socket.setSoTimeout(1000);
			return new String(socket.getInputStream().readNBytes(5), StandardCharsets.US_ASCII);
		}
	}

}
