package dev.lockstarter.test.redis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.StringJoiner;

import javax.net.SocketFactory;

import org.jspecify.annotations.Nullable;

/**
 * A minimal RESP2 client: one command over a fresh socket, its reply decoded to text.
 * <p>
 * Kept instead of Lettuce, which is only an optional dependency of the kit, because the
 * probes and tests need control at the protocol level: a fresh plain or TLS socket per
 * command with a strict connect and read timeout that fails with the socket's own
 * exception (on a paused server, or a plain client against a TLS-only one), and no
 * connection pool, reconnect or event loop threads to start and shut down.
 */
final class Resp {

	private Resp() {
	}

	/**
	 * Send one command and read its reply.
	 * @param host the server's host
	 * @param port the server's port
	 * @param timeout the connect and read timeout
	 * @param args the command and its arguments, encoded as UTF-8 bulk strings
	 * @return the reply as text, or {@code null} for a nil reply
	 * @throws IOException if the server cannot be reached or does not answer in time
	 * @throws ErrorReplyException if the server answers with an error
	 */
	static @Nullable String send(String host, int port, Duration timeout, String... args) throws IOException {
		return send(SocketFactory.getDefault(), host, port, timeout, args);
	}

	/**
	 * Send one command over a socket of the given factory (a TLS one, for example) and
	 * read its reply.
	 * @param socketFactory the factory of the socket
	 * @param host the server's host
	 * @param port the server's port
	 * @param timeout the connect and read timeout
	 * @param args the command and its arguments, encoded as UTF-8 bulk strings
	 * @return the reply as text, or {@code null} for a nil reply
	 * @throws IOException if the server cannot be reached or does not answer in time
	 * @throws ErrorReplyException if the server answers with an error
	 */
	static @Nullable String send(SocketFactory socketFactory, String host, int port, Duration timeout, String... args)
			throws IOException {
		int timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
		try (Socket socket = socketFactory.createSocket()) {
			socket.connect(new InetSocketAddress(host, port), timeoutMillis);
			socket.setSoTimeout(timeoutMillis);
			socket.setTcpNoDelay(true);
			OutputStream out = socket.getOutputStream();
			out.write(encode(args));
			out.flush();
			return read(new BufferedInputStream(socket.getInputStream()));
		}
	}

	static byte[] encode(String... args) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		writeAscii(out, "*" + args.length + "\r\n");
		for (String arg : args) {
			byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
			writeAscii(out, "$" + bytes.length + "\r\n");
			out.writeBytes(bytes);
			writeAscii(out, "\r\n");
		}
		return out.toByteArray();
	}

	static @Nullable String read(InputStream in) throws IOException {
		int type = in.read();
		if (type == -1) {
			throw new EOFException("Connection closed before a reply");
		}
		String line = readLine(in);
		switch (type) {
			case '+', ':' -> {
				return line;
			}
			case '-' -> throw new ErrorReplyException(line);
			case '$' -> {
				int length = Integer.parseInt(line);
				if (length < 0) {
					return null;
				}
				byte[] bytes = in.readNBytes(length);
				if (bytes.length < length) {
					throw new EOFException("Connection closed inside a bulk reply");
				}
				readLine(in);
				return new String(bytes, StandardCharsets.UTF_8);
			}
			case '*' -> {
				int count = Integer.parseInt(line);
				if (count < 0) {
					return null;
				}
				StringJoiner elements = new StringJoiner("\n");
				for (int i = 0; i < count; i++) {
					String element = read(in);
					elements.add((element != null) ? element : "");
				}
				return elements.toString();
			}
			default -> throw new IOException("Unexpected RESP reply type '" + (char) type + "'");
		}
	}

	private static String readLine(InputStream in) throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int previous = -1;
		while (true) {
			int next = in.read();
			if (next == -1) {
				throw new EOFException("Connection closed inside a reply");
			}
			if (previous == '\r' && next == '\n') {
				byte[] bytes = line.toByteArray();
				return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
			}
			line.write(next);
			previous = next;
		}
	}

	private static void writeAscii(ByteArrayOutputStream out, String text) {
		out.writeBytes(text.getBytes(StandardCharsets.US_ASCII));
	}

	/**
	 * An error reply ({@code -ERR ...}) from the server.
	 */
	static final class ErrorReplyException extends RuntimeException {

		ErrorReplyException(String message) {
			super(message);
		}

	}

}
