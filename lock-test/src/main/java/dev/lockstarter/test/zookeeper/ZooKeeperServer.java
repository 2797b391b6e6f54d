package dev.lockstarter.test.zookeeper;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.IntSupplier;

import dev.lockstarter.test.ServerProcess;
import dev.lockstarter.test.fault.MemberHost;
import dev.lockstarter.test.fault.NamespaceNetwork;
import org.springframework.util.Assert;

/**
 * A real ZooKeeper server for tests: one {@code java} process of ZooKeeper's
 * {@code QuorumPeerMain}, standalone ({@link #start()}) or a member of a
 * {@link ZooKeeperEnsemble}, with its {@code zoo.cfg}, data and log
 * ({@code zookeeper.log}) in a temporary directory, its client port a free loopback port.
 * <p>
 * The classes come from the installation named by the {@value #HOME_PROPERTY} system
 * property (an Apache ZooKeeper distribution, the directory holding {@code lib/}), else
 * from Debian's {@code zookeeper} package ({@code /usr/share/java/zookeeper.jar}); the
 * JVM is the one running the tests, with a 64 MB heap. The system's ZooKeeper
 * configuration and service are not used. Servers tick every {@value #TICK_TIME_MILLIS}
 * ms instead of 2 s, so that failures are noticed and elections end within about a second
 * (see {@link ZooKeeperEnsemble}); they accept session timeouts from
 * {@value #MIN_SESSION_TIMEOUT_MILLIS} ms to {@value #MAX_SESSION_TIMEOUT_MILLIS} ms,
 * have TTL and container nodes enabled, reaped every tick, and write their transaction
 * log without flushing it: the data survives a {@linkplain #kill() kill}, not a crash of
 * the machine. They answer the four-letter words {@value #FOUR_LETTER_WORDS}; their
 * AdminServer is off.
 * <p>
 * A server can be {@linkplain #pause() paused} ({@code SIGSTOP}) and
 * {@linkplain #resume() resumed}, {@linkplain #stop() stopped} or {@linkplain #kill()
 * killed} and {@linkplain #restart() restarted} on the same ports with its data.
 * {@link #close()} kills it and deletes its directory; servers still running when the JVM
 * exits are killed by a shutdown hook.
 *
 * <pre class="code">
 * try (ZooKeeperServer zookeeper = ZooKeeperServer.start()) {
 *     CuratorFramework client = CuratorFrameworkFactory.newClient(zookeeper.connectString(), retryPolicy);
 *     ...
 * }
 * </pre>
 *
 * @since 0.1.0
 * @see ZooKeeperServerExtension
 */
public final class ZooKeeperServer implements AutoCloseable {

	/**
	 * System property naming a ZooKeeper installation to run instead of Debian's: an
	 * Apache ZooKeeper binary distribution (the directory holding {@code lib/}), or a
	 * directory holding {@code zookeeper.jar}.
	 */
	public static final String HOME_PROPERTY = "lockstarter.test.zookeeper.home";

	/** The servers' {@code tickTime}, ZooKeeper's unit of time, in milliseconds. */
	public static final int TICK_TIME_MILLIS = 200;

	/**
	 * The servers' {@code initLimit} in ticks: how long a follower may take to connect to
	 * a new leader and sync with it (2 s).
	 */
	public static final int INIT_LIMIT = 10;

	/**
	 * The servers' {@code syncLimit} in ticks: how long a follower or the leader may go
	 * without hearing from the other before giving up on it (1 s).
	 */
	public static final int SYNC_LIMIT = 5;

	/** The shortest session timeout the servers grant, in milliseconds: two ticks. */
	public static final int MIN_SESSION_TIMEOUT_MILLIS = 2 * TICK_TIME_MILLIS;

	/** The longest session timeout the servers grant, in milliseconds. */
	public static final int MAX_SESSION_TIMEOUT_MILLIS = 60_000;

	/** The four-letter words the servers answer. */
	public static final String FOUR_LETTER_WORDS = "ruok,srvr,stat,mntr,conf,cons,envi";

	private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(1);

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);

	private final ServerProcess process;

	private final int id;

	private boolean running = true;

	private boolean paused;

	private ZooKeeperServer(ServerProcess process, int id) {
		this.process = process;
		this.id = id;
	}

	/**
	 * Start a standalone server on a free loopback port and wait until it serves.
	 * @return the running server
	 * @throws IllegalStateException if ZooKeeper is not installed (the message says what
	 * to install), or the server does not serve within 30 seconds
	 */
	public static ZooKeeperServer start() {
		ZooKeeperServer server = new ZooKeeperServer(ServerProcess.start(
				new ZooKeeperDefinition(ZooKeeperInstallation.find(), 0, List.of(), MemberHost.loopback()),
				ServerProcess::freePort), 0);
		try {
			server.awaitMode(Mode.STANDALONE, STARTUP_TIMEOUT);
			return server;
		}
		catch (RuntimeException ex) {
			server.close();
			throw ex;
		}
	}

	/**
	 * Start a member of an ensemble on a host, returning once its process answers.
	 */
	static ZooKeeperServer startMember(ZooKeeperInstallation installation, int id, List<String> servers,
			IntSupplier ports, MemberHost host) {
		return new ZooKeeperServer(ServerProcess.start(new ZooKeeperDefinition(installation, id, servers, host), ports),
				id);
	}

	/**
	 * Return the host the server listens on.
	 * @return {@code 127.0.0.1}, or its host's client address in a
	 * {@link NamespaceNetwork}
	 */
	public String host() {
		return this.process.host();
	}

	/**
	 * Return the client port, the same after a restart.
	 * @return the port
	 */
	public int port() {
		return this.process.port();
	}

	/**
	 * Return the address of the server for a ZooKeeper or Curator client.
	 * @return {@code 127.0.0.1:<port>}
	 */
	public String connectString() {
		return host() + ":" + port();
	}

	/**
	 * Return the server's id in its ensemble ({@code myid}).
	 * @return the id, from 1; 0 for a standalone server
	 */
	public int id() {
		return this.id;
	}

	/**
	 * Return the server's directory: {@code zoo.cfg}, the data ({@code data}, with
	 * {@code myid}) and the log ({@code zookeeper.log}, or {@code zookeeper-<id>.log} for
	 * a member). Deleted on {@link #close()}.
	 * @return the directory
	 */
	public Path directory() {
		return this.process.directory();
	}

	/**
	 * Return whether the process runs: started and neither stopped nor killed since. A
	 * paused process runs.
	 * @return whether it runs
	 */
	public synchronized boolean isRunning() {
		return this.running;
	}

	/**
	 * Return whether the process is {@linkplain #pause() paused}.
	 * @return whether it is paused
	 */
	public synchronized boolean isPaused() {
		return this.paused;
	}

	/**
	 * Send a four-letter word, one of {@value #FOUR_LETTER_WORDS}, and return the answer.
	 * @param word the word, such as {@code mntr}
	 * @return the answer
	 * @throws IllegalStateException if the server is not running, is paused, or does not
	 * answer within a second
	 */
	public String fourLetterWord(String word) {
		Assert.notNull(word, "'word' must not be null");
		synchronized (this) {
			Assert.state(this.running && !this.paused,
					() -> "Cannot ask " + this + " '" + word + "': it is " + (this.running ? "paused" : "not running"));
		}
		try {
			return FourLetterWords.send(host(), port(), word, ANSWER_TIMEOUT);
		}
		catch (IOException ex) {
			throw new IllegalStateException(this + " did not answer '" + word + "': " + ex.getMessage(), ex);
		}
	}

	/**
	 * Return the server's mode, as it reports it ({@code srvr}).
	 * @return the mode
	 * @throws IllegalStateException if the server is not running, is paused, or does not
	 * answer within a second
	 */
	public Mode mode() {
		String answer = fourLetterWord("srvr");
		Mode mode = FourLetterWords.mode(answer);
		Assert.state(mode != null, () -> this + " answered 'srvr' without a mode: " + answer);
		return mode;
	}

	/**
	 * Wait until the server reports the given mode, for example {@link Mode#FOLLOWER}
	 * after a member's {@link #restart()}.
	 * @param expected the mode to wait for
	 * @param timeout the longest time to wait
	 * @throws IllegalStateException if the server does not report the mode in time
	 */
	public void awaitMode(Mode expected, Duration timeout) {
		Assert.notNull(expected, "'expected' must not be null");
		Assert.notNull(timeout, "'timeout' must not be null");
		long deadline = System.nanoTime() + timeout.toNanos();
		String last = "no answer";
		while (true) {
			try {
				Mode mode = mode();
				if (mode == expected) {
					return;
				}
				last = mode.toString();
			}
			catch (IllegalStateException ex) {
				last = String.valueOf(ex.getMessage());
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException(
						this + " did not become " + expected + " within " + timeout.toMillis() + " ms; last: " + last);
			}
			pollPause();
		}
	}

	/**
	 * Suspend the process ({@code SIGSTOP}) and wait until all its threads are stopped:
	 * it answers no one, not even the other members, until {@link #resume()}.
	 * @throws IllegalStateException if the process is not running
	 */
	public synchronized void pause() {
		this.process.pause();
		this.paused = true;
	}

	/**
	 * Resume a {@linkplain #pause() paused} process ({@code SIGCONT}). Does nothing if it
	 * is not paused.
	 */
	public synchronized void resume() {
		this.process.resume();
		this.paused = false;
	}

	/**
	 * Stop the process ({@code SIGTERM}, then {@code SIGKILL} after 2 seconds), keeping
	 * its ports and data for {@link #restart()}. Does nothing if it is not running.
	 */
	public synchronized void stop() {
		this.process.stop();
		this.running = false;
		this.paused = false;
	}

	/**
	 * Kill the process at once ({@code SIGKILL}), as a crash would, keeping its ports and
	 * data for {@link #restart()}. Does nothing if it is not running.
	 */
	public synchronized void kill() {
		this.process.kill();
		this.running = false;
		this.paused = false;
	}

	/**
	 * Start the process again on the same ports with its data, stopping it first if it
	 * runs. A standalone server is waited for until it serves; a member until its process
	 * answers, after which it serves once it has joined a quorum: wait for that with
	 * {@link #awaitMode(Mode, Duration)} or
	 * {@link ZooKeeperEnsemble#awaitFormed(Duration)}.
	 * @throws IllegalStateException if the server is closed or cannot be started again
	 */
	public synchronized void restart() {
		this.process.restart();
		this.running = true;
		this.paused = false;
		if (this.id == 0) {
			awaitMode(Mode.STANDALONE, STARTUP_TIMEOUT);
		}
	}

	/**
	 * Kill the process and delete the directory. Calling it again does nothing.
	 */
	@Override
	public synchronized void close() {
		this.process.kill();
		this.process.close();
		this.running = false;
		this.paused = false;
	}

	@Override
	public String toString() {
		return "ZooKeeperServer[" + ((this.id > 0) ? "id " + this.id + ", " : "") + this.process + "]";
	}

	static void pollPause() {
		try {
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for ZooKeeper", ex);
		}
	}

	/**
	 * The mode of a server, as {@code srvr} reports it.
	 */
	public enum Mode {

		/** A server without an ensemble. */
		STANDALONE,

		/** The leader of an ensemble. */
		LEADER,

		/** A member that follows the leader, voting. */
		FOLLOWER,

		/** A member that follows the leader without voting. */
		OBSERVER,

		/** A member cut off from the quorum that serves reads only. */
		READ_ONLY,

		/** A member without a quorum, for example during an election. */
		NOT_SERVING

	}

}
