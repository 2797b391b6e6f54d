package dev.lockstarter.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A connection in Redis {@code MONITOR} mode: reads the command feed, in which Redis
 * shows every command it executes, with its source: a client's address for a command sent
 * over the network (one request), {@code lua} for a command a script ran inside the
 * server.
 */
final class RedisMonitor implements AutoCloseable {

	private static final Pattern LINE = Pattern.compile("^\\+\\d+\\.\\d+ \\[\\d+ ([^\\]]+)\\] \"([^\"]*)\"(.*)$");

	private final Socket socket;

	private final BufferedReader reader;

	private RedisMonitor(Socket socket) throws IOException {
		this.socket = socket;
		this.reader = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
	}

	static RedisMonitor open(String host, int port) throws IOException {
		Socket socket = new Socket(host, port);
		socket.setSoTimeout(10_000);
		RedisMonitor monitor = new RedisMonitor(socket);
		OutputStream out = socket.getOutputStream();
		out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
		out.flush();
		String reply = monitor.reader.readLine();
		if (!"+OK".equals(reply)) {
			socket.close();
			throw new IOException("MONITOR answered " + reply);
		}
		return monitor;
	}

	/**
	 * Read the feed up to and including the {@code ECHO} of the given marker, and return
	 * the commands after the {@code ECHO} of the start marker and before the end marker.
	 * @param startMarker the argument of the {@code ECHO} that opens the window
	 * @param endMarker the argument of the {@code ECHO} that closes it
	 * @return the commands seen in between, in order
	 * @throws IOException if the feed cannot be read
	 */
	List<Command> readBetween(String startMarker, String endMarker) throws IOException {
		List<Command> commands = new ArrayList<>();
		boolean started = false;
		String line;
		while ((line = this.reader.readLine()) != null) {
			Matcher matcher = LINE.matcher(line);
			if (!matcher.matches()) {
				continue;
			}
			String source = matcher.group(1);
			String name = matcher.group(2).toLowerCase();
			String arguments = matcher.group(3);
			if (name.equals("echo") && arguments.contains(startMarker)) {
				started = true;
			}
			else if (name.equals("echo") && arguments.contains(endMarker)) {
				return commands;
			}
			else if (started) {
				commands.add(new Command(name, source.equals("lua")));
			}
		}
		throw new IOException("The MONITOR feed ended before '" + endMarker + "'");
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

	/**
	 * One command executed by the server.
	 *
	 * @param name the command's name, lower case
	 * @param inScript whether a script ran it, rather than a client
	 */
	record Command(String name, boolean inScript) {

	}

}
