package dev.lockstarter.test.fault;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.ServerProcess;

/**
 * Where a member of a cluster runs: loopback, or a host of a {@link NamespaceNetwork}. It
 * gives the address the member serves its clients on, the address it talks to its peers
 * on, and the command line that runs it there.
 *
 * @param clientAddress the address clients connect to
 * @param peerAddress the address the members talk to each other on
 * @param launcher what runs a command on the host, before the command; empty on loopback
 * @since 0.1.0
 */
public record MemberHost(String clientAddress, String peerAddress, List<String> launcher) {

	private static final MemberHost LOOPBACK = new MemberHost(ServerProcess.HOST, ServerProcess.HOST, List.of());

	/**
	 * Create a new instance.
	 * @param clientAddress the address clients connect to
	 * @param peerAddress the address the members talk to each other on
	 * @param launcher what runs a command on the host; empty on loopback
	 */
	public MemberHost {
		launcher = List.copyOf(launcher);
	}

	/**
	 * Return loopback, where a server runs unless a network is given.
	 * @return the loopback host, {@value ServerProcess#HOST} for clients and peers
	 */
	public static MemberHost loopback() {
		return LOOPBACK;
	}

	/**
	 * Return the host of a member: host {@code index} of a network, or loopback.
	 * @param network the network, or {@code null} for loopback
	 * @param index the member's index, which is its host's in the network
	 * @return the host
	 */
	public static MemberHost of(@Nullable NamespaceNetwork network, int index) {
		return (network != null) ? network.host(index) : LOOPBACK;
	}

	/**
	 * Return a command line that runs the given one on this host.
	 * @param command the command, the binary first
	 * @return the command to run
	 */
	public List<String> command(List<String> command) {
		List<String> launched = new ArrayList<>(this.launcher);
		launched.addAll(command);
		return launched;
	}

}
