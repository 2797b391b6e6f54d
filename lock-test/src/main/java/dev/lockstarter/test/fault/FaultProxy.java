package dev.lockstarter.test.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.Assert;

/**
 * A TCP proxy on a free loopback port that forwards to one server and injects faults
 * between a client and that server, for failure tests.
 * <p>
 * Faults, each in force until {@link #heal()}:
 * <ul>
 * <li>{@link #latency(Duration)}: every chunk of bytes, in both directions, is delivered
 * that much later than it arrived (order is kept, nothing is lost);</li>
 * <li>{@link #blackhole()}: connections are accepted but nothing is forwarded in either
 * direction, so requests are never answered;</li>
 * <li>{@link #dropReplies()}: requests reach the server, its replies are swallowed, so
 * the server acts on requests whose outcome the client never learns;</li>
 * <li>{@link #refuse()}: every open connection is reset, and new ones are reset as soon
 * as they are accepted.</li>
 * </ul>
 * {@link #heal()} ends every fault. A connection that lost bytes while blackholed or
 * dropping replies is closed when healed: a TCP stream never delivers later bytes after a
 * gap, so a client must see such a connection fail, as it would on a real network.
 *
 * <pre class="code">
 * try (FaultProxy proxy = FaultProxy.start(redis.host(), redis.port())) {
 *     // point the client at proxy.host():proxy.port()
 *     proxy.dropReplies();
 *     ...
 *     proxy.heal();
 * }
 * </pre>
 *
 * @since 0.1.0
 */
public final class FaultProxy implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(FaultProxy.class);

	private static final int BUFFER_SIZE = 16 * 1024;

	private final InetSocketAddress target;

	private final ServerSocket serverSocket;

	private final Thread acceptor;

	private final Set<Connection> connections = ConcurrentHashMap.newKeySet();

	private final AtomicLong accepted = new AtomicLong();

	private volatile Fault fault = Fault.NONE;

	private volatile long latencyNanos;

	private volatile boolean closed;

	private FaultProxy(InetSocketAddress target, ServerSocket serverSocket) {
		this.target = target;
		this.serverSocket = serverSocket;
		this.acceptor = new Thread(this::acceptLoop, "fault-proxy-" + serverSocket.getLocalPort());
		this.acceptor.setDaemon(true);
	}

	/**
	 * Start a proxy to the given server, on a free loopback port, without faults.
	 * @param host the server's host
	 * @param port the server's port
	 * @return the running proxy
	 * @throws UncheckedIOException if no port can be bound
	 */
	public static FaultProxy start(String host, int port) {
		Assert.hasText(host, "'host' must not be empty");
		Assert.isTrue(port > 0 && port <= 65535, "'port' must be between 1 and 65535");
		ServerSocket serverSocket;
		try {
			serverSocket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not bind a port for the fault proxy", ex);
		}
		FaultProxy proxy = new FaultProxy(new InetSocketAddress(host, port), serverSocket);
		proxy.acceptor.start();
		return proxy;
	}

	/**
	 * Return the host clients connect to.
	 * @return the loopback address, as text
	 */
	public String host() {
		return this.serverSocket.getInetAddress().getHostAddress();
	}

	/**
	 * Return the port clients connect to.
	 * @return the port
	 */
	public int port() {
		return this.serverSocket.getLocalPort();
	}

	/**
	 * Delay every chunk of bytes, in both directions, by {@code latency}. Replaces any
	 * other fault; {@link Duration#ZERO} removes the delay.
	 * @param latency the delay, not negative
	 */
	public void latency(Duration latency) {
		Assert.notNull(latency, "'latency' must not be null");
		Assert.isTrue(!latency.isNegative(), "'latency' must not be negative");
		this.latencyNanos = latency.toNanos();
		this.fault = Fault.NONE;
	}

	/**
	 * Accept connections but forward nothing in either direction, until {@link #heal()}.
	 */
	public void blackhole() {
		this.latencyNanos = 0;
		this.fault = Fault.BLACKHOLE;
	}

	/**
	 * Forward requests to the server but swallow its replies, until {@link #heal()}.
	 */
	public void dropReplies() {
		this.latencyNanos = 0;
		this.fault = Fault.DROP_REPLIES;
	}

	/**
	 * Reset every open connection, and every new one as soon as it is accepted, until
	 * {@link #heal()}.
	 */
	public void refuse() {
		this.latencyNanos = 0;
		this.fault = Fault.REFUSE;
		for (Connection connection : this.connections) {
			connection.close(true);
		}
	}

	/**
	 * End every fault. Connections that lost bytes are closed; the others go on.
	 */
	public void heal() {
		this.latencyNanos = 0;
		this.fault = Fault.NONE;
		for (Connection connection : this.connections) {
			if (connection.lostBytes) {
				connection.close(true);
			}
		}
	}

	/**
	 * Return the number of client connections currently open through the proxy.
	 * @return the number of open connections
	 */
	public int openConnections() {
		return this.connections.size();
	}

	/**
	 * Return the number of client connections accepted since the proxy started, including
	 * those that were reset at once.
	 * @return the number of accepted connections
	 */
	public long acceptedConnections() {
		return this.accepted.get();
	}

	/**
	 * Stop accepting and close every connection: once it returns, the port takes no more
	 * connections. Calling it again does nothing.
	 */
	@Override
	public void close() {
		this.closed = true;
		try {
			this.serverSocket.close();
		}
		catch (IOException ex) {
			// Closing anyway
		}
		// The kernel keeps the port listening, and completes handshakes into its backlog,
		// until the thread blocked in accept() has left it
		awaitAcceptorEnd();
		for (Connection connection : this.connections) {
			connection.close(false);
		}
	}

	private void awaitAcceptorEnd() {
		if (Thread.currentThread() == this.acceptor) {
			return;
		}
		try {
			this.acceptor.join(5000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public String toString() {
		return "FaultProxy[" + host() + ":" + port() + " -> " + this.target.getHostString() + ":"
				+ this.target.getPort() + ", " + this.fault
				+ ((this.latencyNanos > 0) ? ", latency " + Duration.ofNanos(this.latencyNanos) : "") + "]";
	}

	private void acceptLoop() {
		while (!this.closed) {
			Socket client;
			try {
				client = this.serverSocket.accept();
			}
			catch (IOException ex) {
				if (!this.closed) {
					logger.warn("Fault proxy stopped accepting: " + ex.getMessage());
				}
				return;
			}
			this.accepted.incrementAndGet();
			if (this.fault == Fault.REFUSE) {
				reset(client);
				continue;
			}
			Socket server = new Socket();
			try {
				server.connect(this.target, 5000);
				client.setTcpNoDelay(true);
				server.setTcpNoDelay(true);
			}
			catch (IOException ex) {
				logger.debug("Fault proxy could not reach " + this.target + ": " + ex.getMessage());
				reset(client);
				closeQuietly(server);
				continue;
			}
			Connection connection = new Connection(client, server);
			this.connections.add(connection);
			connection.start();
		}
	}

	private static void reset(Socket socket) {
		try {
			socket.setSoLinger(true, 0);
		}
		catch (SocketException ex) {
			// Closed below anyway
		}
		closeQuietly(socket);
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Nothing more to do
		}
	}

	private enum Fault {

		NONE, BLACKHOLE, DROP_REPLIES, REFUSE

	}

	/**
	 * One proxied connection: for each direction a reader that stamps each chunk with its
	 * due time and a writer that delivers it then, so that latency delays without
	 * throttling.
	 */
	private final class Connection {

		private static final byte[] END = new byte[0];

		private final Socket client;

		private final Socket server;

		private volatile boolean lostBytes;

		private volatile boolean closed;

		Connection(Socket client, Socket server) {
			this.client = client;
			this.server = server;
		}

		void start() {
			pump(this.client, this.server, false);
			pump(this.server, this.client, true);
		}

		private void pump(Socket from, Socket to, boolean replies) {
			BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
			String name = "fault-proxy-" + port() + (replies ? "-replies-" : "-requests-") + from.getPort();
			Thread reader = new Thread(() -> read(from, queue, replies), name + "-read");
			Thread writer = new Thread(() -> write(queue, to), name + "-write");
			reader.setDaemon(true);
			writer.setDaemon(true);
			reader.start();
			writer.start();
		}

		private void read(Socket from, BlockingQueue<Chunk> queue, boolean replies) {
			byte[] buffer = new byte[BUFFER_SIZE];
			try {
				InputStream in = from.getInputStream();
				int read;
				while ((read = in.read(buffer)) != -1) {
					Fault current = FaultProxy.this.fault;
					if (current == Fault.BLACKHOLE || (replies && current == Fault.DROP_REPLIES)) {
						this.lostBytes = true;
						continue;
					}
					queue.add(new Chunk(Arrays.copyOf(buffer, read), System.nanoTime() + FaultProxy.this.latencyNanos));
				}
			}
			catch (IOException ex) {
				// The connection is closed or reset
			}
			queue.add(new Chunk(END, System.nanoTime() + FaultProxy.this.latencyNanos));
		}

		private void write(BlockingQueue<Chunk> queue, Socket to) {
			try {
				OutputStream out = to.getOutputStream();
				while (true) {
					Chunk chunk = queue.take();
					long wait = chunk.dueAt - System.nanoTime();
					if (wait > 0) {
						TimeUnit.NANOSECONDS.sleep(wait);
					}
					if (chunk.bytes == END) {
						break;
					}
					out.write(chunk.bytes);
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				// The connection is closed or reset
			}
			close(false);
		}

		void close(boolean reset) {
			if (this.closed) {
				return;
			}
			this.closed = true;
			FaultProxy.this.connections.remove(this);
			if (reset) {
				reset(this.client);
				reset(this.server);
			}
			else {
				closeQuietly(this.client);
				closeQuietly(this.server);
			}
		}

	}

	private record Chunk(byte[] bytes, long dueAt) {

	}

}
