package dev.lockstarter.store.zookeeper;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.apache.zookeeper.server.DataNode;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real standalone ZooKeeper server, ZooKeeper's own server classes (from the jar the
 * client comes in), run in the test JVM for a test class, so that a test can reach into
 * its data tree: {@link #setVersion} sets a node's data version, which only some 2³¹
 * writes would bring near the end of its range otherwise. Everything else (requests,
 * versions checked and raised by writes, {@code multi}, watches) is the server's own.
 * <p>
 * The server's digest of its data tree is turned off while it runs: a version set by hand
 * would otherwise be reported as a digest mismatch.
 */
final class InJvmZooKeeper implements BeforeAllCallback, AfterAllCallback {

	private @Nullable Path directory;

	private @Nullable ZooKeeperServer server;

	private @Nullable ServerCnxnFactory connections;

	private boolean digestEnabled;

	@Override
	public void beforeAll(ExtensionContext context) throws Exception {
		this.digestEnabled = ZooKeeperServer.isDigestEnabled();
		ZooKeeperServer.setDigestEnabled(false);
		Path directory = Files.createTempDirectory("in-jvm-zookeeper");
		this.directory = directory;
		ZooKeeperServer server = new ZooKeeperServer(directory.resolve("snapshots").toFile(),
				directory.resolve("log").toFile(), 500);
		this.server = server;
		ServerCnxnFactory connections = ServerCnxnFactory
			.createFactory(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
		connections.startup(server);
		this.connections = connections;
	}

	@Override
	public void afterAll(ExtensionContext context) throws IOException {
		if (this.connections != null) {
			this.connections.shutdown();
		}
		if (this.server != null) {
			this.server.shutdown();
		}
		ZooKeeperServer.setDigestEnabled(this.digestEnabled);
		if (this.directory != null) {
			try (Stream<Path> files = Files.walk(this.directory)) {
				files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
			}
		}
	}

	String connectString() {
		if (this.connections == null) {
			throw new IllegalStateException("The server runs only during the test class");
		}
		return "127.0.0.1:" + this.connections.getLocalPort();
	}

	/**
	 * Set the data version of a node, as if it had been written that many times. Call it
	 * while no write of the node is under way.
	 * @param path the node's path
	 * @param version the version
	 */
	void setVersion(String path, int version) {
		DataNode node = node(path);
		synchronized (node) {
			node.stat.setVersion(version);
		}
	}

	/**
	 * Return the data version of a node.
	 * @param path the node's path
	 * @return the version
	 */
	int version(String path) {
		DataNode node = node(path);
		synchronized (node) {
			return node.stat.getVersion();
		}
	}

	private DataNode node(String path) {
		if (this.server == null) {
			throw new IllegalStateException("The server runs only during the test class");
		}
		DataNode node = this.server.getZKDatabase().getNode(path);
		if (node == null) {
			throw new IllegalStateException("No node " + path);
		}
		return node;
	}

}
