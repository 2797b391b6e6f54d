package dev.lockstarter.test.memcached;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal Memcached text protocol client: one command over a fresh socket, its reply
 * lines.
 * <p>
 * Kept instead of xmemcached, which is only an optional dependency of the kit and has no
 * way to send an arbitrary command line, because the readiness probe and the tests need a
 * fresh socket with a strict timeout that fails with the socket's own exception (on a
 * paused server), without a client that reconnects and runs its own threads.
 */
final class MemcachedText {

	private MemcachedText() {
	}

	/**
	 * Send one command line and read the reply, up to and including a line that ends it:
	 * {@code END}, {@code OK}, {@code VERSION ...}, or an error line.
	 * @param host the server's host
	 * @param port the server's port
	 * @param timeout the connect and read timeout
	 * @param command the command line, without its {@code \r\n}; must not contain line
	 * breaks
	 * @return the reply lines, without line breaks
	 * @throws IOException if the server cannot be reached or does not answer in time
	 */
	static List<String> send(String host, int port, Duration timeout, String command) throws IOException {
		if (command.indexOf('\r') >= 0 || command.indexOf('\n') >= 0) {
			throw new IllegalArgumentException("A command must be one line");
		}
		int timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), timeoutMillis);
			socket.setSoTimeout(timeoutMillis);
			socket.setTcpNoDelay(true);
			OutputStream out = socket.getOutputStream();
			out.write((command + "\r\n").getBytes(StandardCharsets.UTF_8));
			out.flush();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
			List<String> lines = new ArrayList<>();
			while (true) {
				String line = in.readLine();
				if (line == null) {
					throw new IOException("Connection closed by the server after " + lines);
				}
				lines.add(line);
				if (isLast(line)) {
					return lines;
				}
			}
		}
	}

	/**
	 * Return the server's statistics.
	 * @param host the server's host
	 * @param port the server's port
	 * @param timeout the connect and read timeout
	 * @return the {@code stats} values by name, in the server's order
	 * @throws IOException if the server cannot be reached or does not answer in time
	 */
	static Map<String, String> stats(String host, int port, Duration timeout) throws IOException {
		Map<String, String> stats = new LinkedHashMap<>();
		for (String line : send(host, port, timeout, "stats")) {
			if (line.startsWith("STAT ")) {
				int space = line.indexOf(' ', 5);
				if (space > 0) {
					stats.put(line.substring(5, space), line.substring(space + 1));
				}
			}
		}
		return stats;
	}

	private static boolean isLast(String line) {
		// HD and EN end the meta commands' replies that carry no value (mg without v)
		return line.equals("END") || line.equals("HD") || line.startsWith("HD ") || line.equals("EN")
				|| line.equals("OK") || line.equals("STORED") || line.equals("NOT_STORED") || line.equals("DELETED")
				|| line.equals("NOT_FOUND") || line.equals("EXISTS") || line.startsWith("VERSION ")
				|| line.equals("ERROR") || line.startsWith("CLIENT_ERROR") || line.startsWith("SERVER_ERROR");
	}

}
