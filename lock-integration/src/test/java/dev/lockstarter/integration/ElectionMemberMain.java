package dev.lockstarter.integration;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * An {@link ElectionMember} in a JVM of its own, so that a test can pause every one of
 * its threads ({@code SIGSTOP}). Its standard output carries only
 * {@value ElectionMemberProcess#READY} once the member has started, and the member's
 * events, one a line; its log goes to standard error. It reads commands from standard
 * input: {@value #YIELD} yields the leadership, and {@value #EXIT} or the end of the
 * input stops the member and exits.
 * <p>
 * Arguments: the name of a {@link MemberStores} class, the server's address, the role,
 * the member's id, and the time-to-live, the heartbeat and the busy wait in milliseconds.
 */
final class ElectionMemberMain {

	static final String YIELD = "yield";

	static final String EXIT = "exit";

	private ElectionMemberMain() {
	}

	public static void main(String[] args) throws Exception {
		PrintStream out = System.out;
		System.setOut(System.err);
		MemberStores stores = (MemberStores) Class.forName(args[0]).getDeclaredConstructor().newInstance();
		ElectionMember.Settings settings = new ElectionMember.Settings(args[2], millis(args[4]), millis(args[5]),
				millis(args[6]));
		try (ElectionMember member = new ElectionMember(stores, args[1], settings, args[3], (event) -> {
			synchronized (out) {
				out.println(event);
				out.flush();
			}
		})) {
			member.start();
			synchronized (out) {
				out.println(ElectionMemberProcess.READY);
				out.flush();
			}
			BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			for (String command = commands.readLine(); command != null
					&& !command.equals(EXIT); command = commands.readLine()) {
				if (command.equals(YIELD)) {
					member.yieldLeadership();
				}
				else {
					throw new IllegalArgumentException("Unknown command '" + command + "'");
				}
			}
		}
		System.exit(0);
	}

	private static Duration millis(String value) {
		return Duration.ofMillis(Long.parseLong(value));
	}

}
