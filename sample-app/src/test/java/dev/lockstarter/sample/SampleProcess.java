package dev.lockstarter.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An instance of the sample app in a child JVM of its own, on the test's class path, with
 * its output in {@code target/process-tests/{name}.log}: a process that a test can kill
 * with {@code SIGKILL} ({@link #kill()}) or stop gracefully with {@code SIGTERM}
 * ({@link #stop()}).
 */
final class SampleProcess implements AutoCloseable {

	/** Exit value of a JVM killed by SIGKILL: 128 + 9. */
	static final int KILLED = 137;

	private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

	private final String name;

	private final int port;

	private final Path log;

	private final Process process;

	private SampleProcess(String name, int port, Path log, Process process) {
		this.name = name;
		this.port = port;
		this.log = log;
		this.process = process;
	}

	/**
	 * Start the application of {@code mainClass} on a free port, without waiting for it.
	 * @param name the instance's name, which names its log file
	 * @param mainClass the class whose {@code main} starts the application
	 * @param arguments its command line arguments, besides {@code --server.port}
	 */
	static SampleProcess start(String name, Class<?> mainClass, String... arguments) throws IOException {
		int port = freePort();
		Path log = Path.of("target", "process-tests", name + "-" + port + ".log");
		Files.createDirectories(log.getParent());
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		List<String> command = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
				System.getProperty("java.class.path"), mainClass.getName(), "--server.port=" + port,
				"--spring.main.banner-mode=off"));
		command.addAll(List.of(arguments));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		return new SampleProcess(name, port, log, process);
	}

	String name() {
		return this.name;
	}

	URI base() {
		return URI.create("http://127.0.0.1:" + this.port);
	}

	Path log() {
		return this.log.toAbsolutePath();
	}

	String output() throws IOException {
		return Files.readString(this.log, StandardCharsets.UTF_8);
	}

	/**
	 * Wait until the instance's output contains {@code text}: a line that the application
	 * logs on its own thread, after the state that a test observed through HTTP.
	 * @return the output that contains it
	 */
	String awaitOutput(String text, Duration timeout) {
		return await("'" + text + "' in the output of " + this.name + ", " + log()).atMost(timeout)
			.pollInterval(Duration.ofMillis(50))
			.until(this::output, (output) -> output.contains(text));
	}

	/**
	 * Wait until the instance accepts connections on its port.
	 */
	void awaitListening() {
		await(this.name + " listening on " + this.port + "; see " + log()).atMost(START_TIMEOUT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> {
				assertThat(this.process.isAlive()).as("%s alive; its output: %s", this.name, log()).isTrue();
				try (Socket socket = new Socket("127.0.0.1", this.port)) {
					return true;
				}
				catch (IOException notYet) {
					return false;
				}
			});
	}

	/**
	 * Kill the process with SIGKILL, as {@code kill -9} does, and wait for it to end.
	 * @return the exit value, {@value #KILLED} for a process that SIGKILL ended
	 */
	int kill() throws InterruptedException {
		this.process.destroyForcibly();
		assertThat(this.process.waitFor(10, TimeUnit.SECONDS)).as("%s killed", this.name).isTrue();
		return this.process.exitValue();
	}

	/**
	 * Stop the process with SIGTERM, which closes the application context, and wait for
	 * it to end.
	 * @return the exit value
	 */
	int stop() throws InterruptedException {
		this.process.destroy();
		assertThat(this.process.waitFor(30, TimeUnit.SECONDS)).as("%s stopped; its output: %s", this.name, log())
			.isTrue();
		return this.process.exitValue();
	}

	@Override
	public void close() throws InterruptedException {
		if (this.process.isAlive()) {
			this.process.destroyForcibly();
			this.process.waitFor(10, TimeUnit.SECONDS);
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
