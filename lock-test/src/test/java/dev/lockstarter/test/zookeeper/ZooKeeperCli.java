package dev.lockstarter.test.zookeeper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * ZooKeeper's command-line client ({@code ZooKeeperMain}, what the package's
 * {@code zkCli.sh} runs) from the same installation as the servers, one command per run:
 * the test kit does not depend on a ZooKeeper client library.
 */
final class ZooKeeperCli {

	private static final long TIMEOUT_SECONDS = 30;

	private ZooKeeperCli() {
	}

	/**
	 * Run one command against a server.
	 * @param server the server to connect to
	 * @param command the command and its arguments, such as {@code get /path}
	 * @return what the command printed, and its exit code
	 */
	static Result run(ZooKeeperServer server, String... command) throws IOException, InterruptedException {
		List<String> arguments = new ArrayList<>(List.of("-server", server.connectString(), "-timeout", "5000"));
		arguments.addAll(List.of(command));
		List<String> line = ZooKeeperInstallation.find()
			.command(List.of("-Xmx64m", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=off"),
					"org.apache.zookeeper.ZooKeeperMain", arguments);
		Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
		process.getOutputStream().close();
		byte[] output = process.getInputStream().readAllBytes();
		if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
			process.destroyForcibly();
			throw new IllegalStateException("'" + String.join(" ", line) + "' did not end");
		}
		return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
	}

	record Result(int exitCode, String output) {

		List<String> lines() {
			return output().lines().toList();
		}

	}

}
