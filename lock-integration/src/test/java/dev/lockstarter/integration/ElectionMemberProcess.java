package dev.lockstarter.integration;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.lockstarter.test.ProcessSignals;

import static org.awaitility.Awaitility.await;

/**
 * An {@link ElectionMemberMain} started by a test: its events, its commands, and its
 * pause. {@link #pause()} stops every thread of the member's JVM with {@code SIGSTOP}
 * (its initiator's, its lease renewer's, its store client's) and returns once the kernel
 * shows them all stopped; {@link #resume()} lets them go on where they were.
 */
final class ElectionMemberProcess implements AutoCloseable {

	static final String READY = "ready";

	private final Process process;

	private final Path log;

	private final Leadership leadership = new Leadership();

	private final Writer commands;

	private volatile boolean ready;

	private ElectionMemberProcess(Process process, Path log) {
		this.process = process;
		this.log = log;
		this.commands = process.outputWriter(StandardCharsets.UTF_8);
		Thread reader = new Thread(this::readEvents, "election-member-" + process.pid());
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Start a member in a JVM of its own, and wait until it has started.
	 * @param stores the class that opens its store
	 * @param address the server's address
	 * @param settings the election's settings
	 * @param id the member's id
	 * @param log where its log goes
	 * @return the started member
	 */
	static ElectionMemberProcess start(Class<? extends MemberStores> stores, String address,
			ElectionMember.Settings settings, String id, Path log) throws IOException {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		ProcessBuilder builder = new ProcessBuilder(
				List.of(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
						System.getProperty("java.class.path"), ElectionMemberMain.class.getName(), stores.getName(),
						address, settings.role(), id, Long.toString(settings.ttl().toMillis()),
						Long.toString(settings.heartbeat().toMillis()), Long.toString(settings.busyWait().toMillis())));
		Files.createDirectories(log.getParent());
		ElectionMemberProcess member = new ElectionMemberProcess(builder.redirectError(log.toFile()).start(), log);
		try {
			await("start of election member " + id).atMost(60, TimeUnit.SECONDS)
				.failFast(() -> !member.process.isAlive())
				.until(() -> member.ready);
		}
		catch (RuntimeException | Error ex) {
			member.process.destroyForcibly();
			throw new IllegalStateException("Election member " + id + " did not start; its log:\n" + member.output(),
					ex);
		}
		return member;
	}

	Leadership leadership() {
		return this.leadership;
	}

	void yieldLeadership() {
		send(ElectionMemberMain.YIELD);
	}

	void pause() {
		ProcessSignals.stop(this.process);
	}

	void resume() {
		ProcessSignals.resume(this.process);
	}

	@Override
	public void close() throws Exception {
		if (!this.process.isAlive()) {
			return;
		}
		// Resumed first: a stopped JVM would not read its exit command
		ProcessSignals.resume(this.process);
		try {
			send(ElectionMemberMain.EXIT);
		}
		catch (UncheckedIOException ex) {
			// It has exited already
		}
		if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
			this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
	}

	private void send(String command) {
		try {
			this.commands.write(command + "\n");
			this.commands.flush();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not send '" + command + "' to the election member", ex);
		}
	}

	private void readEvents() {
		try (BufferedReader events = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			for (String event = events.readLine(); event != null; event = events.readLine()) {
				if (event.equals(READY)) {
					this.ready = true;
				}
				else {
					this.leadership.record(event);
				}
			}
		}
		catch (IOException ex) {
			// The member has exited
		}
	}

	private String output() {
		try {
			return Files.readString(this.log, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	@Override
	public String toString() {
		return "election member " + this.process.pid() + " " + this.leadership;
	}

}
