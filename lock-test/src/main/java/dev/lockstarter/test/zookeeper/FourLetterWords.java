package dev.lockstarter.test.zookeeper;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.zookeeper.ZooKeeperServer.Mode;

/**
 * ZooKeeper's four-letter words: a command of four ASCII letters sent on the client port,
 * answered with text, after which the server closes the connection. A server answers only
 * the words of its {@code 4lw.commands.whitelist}.
 */
final class FourLetterWords {

	private static final String NOT_SERVING = "This ZooKeeper instance is not currently serving requests";

	private FourLetterWords() {
	}

	/**
	 * Send a word and read the whole answer.
	 * @param host the host
	 * @param port the client port
	 * @param word the word, such as {@code srvr}
	 * @param timeout how long to wait for the connection, and then for each read
	 * @return the answer
	 * @throws IOException if the server does not answer
	 */
	static String send(String host, int port, String word, Duration timeout) throws IOException {
		int millis = (int) timeout.toMillis();
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), millis);
			socket.setSoTimeout(millis);
			OutputStream out = socket.getOutputStream();
			out.write(word.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	/**
	 * Read the mode from the answer to {@code srvr}.
	 * @param answer the answer
	 * @return the mode, or {@code null} if the answer names none
	 */
	static @Nullable Mode mode(String answer) {
		if (answer.startsWith(NOT_SERVING)) {
			return Mode.NOT_SERVING;
		}
		for (String line : answer.split("\n")) {
			if (line.startsWith("Mode: ")) {
				return switch (line.substring("Mode: ".length()).strip()) {
					case "standalone" -> Mode.STANDALONE;
					case "leader" -> Mode.LEADER;
					case "follower" -> Mode.FOLLOWER;
					case "observer" -> Mode.OBSERVER;
					case "read-only" -> Mode.READ_ONLY;
					default -> null;
				};
			}
		}
		return null;
	}

}
