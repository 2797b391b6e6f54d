package dev.lockstarter.test.zookeeper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.ServerProcess;
import dev.lockstarter.test.fault.MemberHost;

/**
 * How to run one ZooKeeper server, standalone or a member of an ensemble: the
 * {@code zoo.cfg} and {@code myid} it reads, written into its directory before every
 * start, and the {@code java} command line of {@code QuorumPeerMain}.
 * <p>
 * The server is ready when its client port answers {@code envi} with its own working
 * directory: an answer naming another directory comes from another process on the port.
 * That is all a member can show before the others start: it serves only once a quorum has
 * formed.
 */
final class ZooKeeperDefinition implements ServerProcess.Definition {

	private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);

	/**
	 * The options of the server's JVM: a small heap, the serial collector and only the
	 * first JIT tier, for a quick start and little CPU on a test machine.
	 */
	private static final List<String> JVM_OPTIONS = List.of("-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
			"-XX:-UsePerfData",
			// The transaction log is written, not flushed, at every commit: it survives a
			// kill, not a crash of the machine
			"-Dzookeeper.forceSync=no",
			// 1 MB log files instead of 64 MB
			"-Dzookeeper.preAllocSize=1024",
			// TTL and container nodes, and a reaper that removes expired ones within a
			// tick
			// instead of a minute
			"-Dzookeeper.extendedTypesEnabled=true",
			"-Dznode.container.checkIntervalMs=" + ZooKeeperServer.TICK_TIME_MILLIS,
			"-Dorg.slf4j.simpleLogger.showDateTime=true", "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");

	private final ZooKeeperInstallation installation;

	private final int id;

	private final List<String> servers;

	private final MemberHost host;

	private volatile @Nullable Path directory;

	/**
	 * Create a definition.
	 * @param installation the installation to run
	 * @param id the server's id in the ensemble, from 1; 0 for a standalone server
	 * @param servers the {@code server.N=...} lines of the ensemble; none for a
	 * standalone server
	 * @param host where the server runs
	 */
	ZooKeeperDefinition(ZooKeeperInstallation installation, int id, List<String> servers, MemberHost host) {
		this.installation = installation;
		this.id = id;
		this.servers = List.copyOf(servers);
		this.host = host;
	}

	@Override
	public String name() {
		return (this.id > 0) ? "zookeeper-" + this.id : "zookeeper";
	}

	@Override
	public String host() {
		return this.host.clientAddress();
	}

	@Override
	public List<String> command(Path directory, int port) throws IOException {
		this.directory = directory;
		Path data = Files.createDirectories(directory.resolve("data"));
		if (this.id > 0) {
			Files.writeString(data.resolve("myid"), this.id + "\n", StandardCharsets.US_ASCII);
		}
		StringBuilder config = new StringBuilder();
		config.append("tickTime=").append(ZooKeeperServer.TICK_TIME_MILLIS).append('\n');
		config.append("initLimit=").append(ZooKeeperServer.INIT_LIMIT).append('\n');
		config.append("syncLimit=").append(ZooKeeperServer.SYNC_LIMIT).append('\n');
		config.append("minSessionTimeout=").append(ZooKeeperServer.MIN_SESSION_TIMEOUT_MILLIS).append('\n');
		config.append("maxSessionTimeout=").append(ZooKeeperServer.MAX_SESSION_TIMEOUT_MILLIS).append('\n');
		config.append("dataDir=").append(data).append('\n');
		config.append("clientPort=").append(port).append('\n');
		config.append("clientPortAddress=").append(host()).append('\n');
		config.append("maxClientCnxns=0\n");
		config.append("admin.enableServer=false\n");
		config.append("4lw.commands.whitelist=").append(ZooKeeperServer.FOUR_LETTER_WORDS).append('\n');
		this.servers.forEach((server) -> config.append(server).append('\n'));
		Path file = directory.resolve("zoo.cfg");
		Files.writeString(file, config, StandardCharsets.UTF_8);
		return this.host.command(
				this.installation.command(JVM_OPTIONS, ZooKeeperInstallation.SERVER_MAIN, List.of(file.toString())));
	}

	@Override
	public boolean probe(Process process, int port) throws IOException {
		Path directory = this.directory;
		String environment = FourLetterWords.send(host(), port, "envi", PROBE_TIMEOUT);
		if (directory == null || !environment.contains("user.dir=")) {
			return false;
		}
		// The JVM may name the directory by its real path
		if (!environment.contains("user.dir=" + directory + "\n")
				&& !environment.contains("user.dir=" + directory.toRealPath() + "\n")) {
			throw new ServerProcess.PortTakenException();
		}
		return true;
	}

	@Override
	public Duration shutdownGracePeriod() {
		return Duration.ofSeconds(2);
	}

	@Override
	public String toString() {
		return name();
	}

}
