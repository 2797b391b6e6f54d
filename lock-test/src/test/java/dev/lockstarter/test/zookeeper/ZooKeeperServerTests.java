package dev.lockstarter.test.zookeeper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.lockstarter.test.zookeeper.ZooKeeperServer.Mode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for a standalone {@link ZooKeeperServer}, through four-letter words and
 * ZooKeeper's command-line client.
 */
class ZooKeeperServerTests {

	@RegisterExtension
	static final ZooKeeperServerExtension zookeeper = new ZooKeeperServerExtension();

	@Test
	void startedServerAnswersRuokAndServesStandaloneOnLoopback(ZooKeeperServer server) throws Exception {
		assertThat(server.fourLetterWord("ruok")).isEqualTo("imok");
		assertThat(server.mode()).isEqualTo(Mode.STANDALONE);
		assertThat(zookeeper.connectString()).isEqualTo("127.0.0.1:" + server.port());
		assertThat(ZooKeeperCli.run(server, "create", "/standalone", "written").exitCode()).isZero();
		ZooKeeperCli.Result read = ZooKeeperCli.run(server, "get", "/standalone");
		assertThat(read.exitCode()).isZero();
		assertThat(read.lines()).contains("written");
	}

	@Test
	void ttlNodesAreAcceptedAndReapedOnceExpired(ZooKeeperServer server) throws Exception {
		ZooKeeperCli.Result created = ZooKeeperCli.run(server, "create", "-t", "500", "/ttl", "short-lived");
		assertThat(created.lines()).as(created.output()).contains("Created /ttl");
		await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ZERO).untilAsserted(() -> {
			ZooKeeperCli.Result read = ZooKeeperCli.run(server, "get", "/ttl");
			assertThat(read.lines()).as(read.output()).contains("Node does not exist: /ttl");
		});
	}

	@Test
	void killedServerRestartsOnTheSamePortWithItsData() throws Exception {
		try (ZooKeeperServer server = ZooKeeperServer.start()) {
			assertThat(ZooKeeperCli.run(server, "create", "/kept", "before the kill").exitCode()).isZero();
			int port = server.port();
			server.kill();
			assertThat(server.isRunning()).isFalse();
			assertThatExceptionOfType(IOException.class)
				.isThrownBy(() -> FourLetterWords.send(server.host(), port, "ruok", Duration.ofSeconds(1)));
			server.restart();
			assertThat(server.port()).isEqualTo(port);
			assertThat(server.mode()).isEqualTo(Mode.STANDALONE);
			assertThat(ZooKeeperCli.run(server, "get", "/kept").lines()).contains("before the kill");
		}
	}

	@Test
	void pausedServerAnswersNothingUntilResumed() throws Exception {
		try (ZooKeeperServer server = ZooKeeperServer.start()) {
			server.pause();
			try {
				assertThat(server.isPaused()).isTrue();
				assertThatExceptionOfType(IOException.class).isThrownBy(
						() -> FourLetterWords.send(server.host(), server.port(), "ruok", Duration.ofSeconds(1)));
			}
			finally {
				server.resume();
			}
			assertThat(server.fourLetterWord("ruok")).isEqualTo("imok");
		}
	}

	@Test
	void closedServerIsEndedAndItsDirectoryDeleted() throws Exception {
		ZooKeeperServer server = ZooKeeperServer.start();
		Path directory = server.directory();
		assertThat(directory.resolve("zoo.cfg")).content()
			.contains("tickTime=200", "4lw.commands.whitelist=" + ZooKeeperServer.FOUR_LETTER_WORDS);
		server.close();
		assertThat(server.isRunning()).isFalse();
		assertThat(directory).doesNotExist();
		assertThatExceptionOfType(IOException.class)
			.isThrownBy(() -> FourLetterWords.send(server.host(), server.port(), "ruok", Duration.ofSeconds(1)));
	}

	@Test
	void installationWithoutZooKeeperIsReportedWithThePropertyThatNamedIt(@TempDir Path empty) throws IOException {
		Files.createDirectories(empty.resolve("lib"));
		String previous = System.getProperty(ZooKeeperServer.HOME_PROPERTY);
		System.setProperty(ZooKeeperServer.HOME_PROPERTY, empty.toString());
		try {
			assertThatIllegalStateException().isThrownBy(ZooKeeperServer::start)
				.withMessageContaining("-D" + ZooKeeperServer.HOME_PROPERTY)
				.withMessageContaining(empty.toString())
				.withMessageContaining("zookeeper.jar");
		}
		finally {
			if (previous != null) {
				System.setProperty(ZooKeeperServer.HOME_PROPERTY, previous);
			}
			else {
				System.clearProperty(ZooKeeperServer.HOME_PROPERTY);
			}
		}
	}

}
