package dev.lockstarter.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.ServerProcess;

/**
 * The sample-app instances of an {@link HttpScenarioRun}, each an {@link HttpInstance} in
 * a JVM of its own: started, replaced by a keeper when one dies, and the moment each
 * died, which the account needs.
 */
final class HttpInstances implements AutoCloseable {

	/** The longest an instance may take to listen. */
	static final Duration START_TIMEOUT = Duration.ofSeconds(120);

	private final String scenario;

	private final Path logs;

	private final List<String> arguments;

	private final HttpFindings findings;

	private final List<Instance> live = new CopyOnWriteArrayList<>();

	/** When each instance that died was seen dead (epoch millis), by id. */
	private final Map<String, Long> dead = new ConcurrentHashMap<>();

	private final AtomicInteger ids = new AtomicInteger();

	private volatile boolean keeping = true;

	/**
	 * @param scenario the scenario's name, for the log files
	 * @param logs where each instance's output goes
	 * @param arguments the application's arguments, beside its port and id
	 * @param findings where the instances started are counted
	 */
	HttpInstances(String scenario, Path logs, List<String> arguments, HttpFindings findings) {
		this.scenario = scenario;
		this.logs = logs;
		this.arguments = List.copyOf(arguments);
		this.findings = findings;
	}

	/** Start instances at once, and wait until each listens. */
	void start(int count) {
		Threads.startAll(count, this::startOne, this.live, "instance-starter");
	}

	/** Replace every instance that died, until {@link #stopKeeping()}. */
	void keep() {
		while (this.keeping) {
			for (Instance instance : this.live) {
				if (!instance.process().isAlive()) {
					this.live.remove(instance);
					if (this.keeping) {
						try {
							this.live.add(startOne());
						}
						catch (RuntimeException ex) {
							System.err
								.println("[" + this.scenario + "] could not replace " + instance.id() + ": " + ex);
						}
					}
				}
			}
			Threads.sleep(100);
		}
	}

	void stopKeeping() {
		this.keeping = false;
	}

	List<Instance> alive() {
		return this.live.stream().filter((instance) -> instance.process().isAlive()).toList();
	}

	@Nullable Instance any() {
		List<Instance> alive = alive();
		return alive.isEmpty() ? null : alive.get(ThreadLocalRandom.current().nextInt(alive.size()));
	}

	/**
	 * An instance that is up: one of those alive, or a new one if none is within the
	 * start time-out.
	 */
	Instance await() {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (System.nanoTime() - deadline < 0) {
			Instance instance = any();
			if (instance != null) {
				return instance;
			}
			Threads.sleep(100);
		}
		Instance instance = startOne();
		this.live.add(instance);
		return instance;
	}

	/** When each instance that died was seen dead (epoch millis), by id. */
	Map<String, Long> dead() {
		return this.dead;
	}

	@Override
	public void close() {
		this.keeping = false;
		for (Instance instance : this.live) {
			instance.process().destroyForcibly();
		}
	}

	private Instance startOne() {
		String id = "i" + this.ids.incrementAndGet();
		int port = ServerProcess.freePort();
		Path log = this.logs.resolve(this.scenario + "-" + id + ".log");
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
				"-cp", System.getProperty("java.class.path"), HttpInstance.class.getName(), "--server.port=" + port,
				"--spring.main.banner-mode=off", "--harness.instance=" + id,
				"--management.endpoints.web.exposure.include=health", "--logging.level.root=WARN"));
		command.addAll(this.arguments);
		Process process;
		try {
			process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start instance " + id, ex);
		}
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (true) {
			if (!process.isAlive() || System.nanoTime() - deadline > 0) {
				process.destroyForcibly();
				throw new IllegalStateException("Instance " + id + " did not start; see " + log.toAbsolutePath());
			}
			try (Socket socket = new Socket("127.0.0.1", port)) {
				break;
			}
			catch (IOException notYet) {
				Threads.sleep(100);
			}
		}
		this.findings.instancesStarted++;
		// When it died, to the moment: the keeper may be busy starting another
		process.onExit().thenRun(() -> this.dead.put(id, System.currentTimeMillis()));
		return new Instance(id, URI.create("http://127.0.0.1:" + port), process);
	}

	/** One instance: its id, where it listens, and its process. */
	record Instance(String id, URI base, Process process) {
	}

}
