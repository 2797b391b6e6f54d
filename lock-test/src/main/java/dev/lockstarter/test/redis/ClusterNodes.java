package dev.lockstarter.test.redis;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A node's view of a Redis Cluster, parsed from its {@code CLUSTER NODES} reply: per
 * line, the id, {@code ip:port@cport}, the flags, the master's id (or {@code -}), ping
 * and pong times, the configuration epoch, the link state, then the slots and slot ranges
 * (importing and migrating slots, in brackets, are skipped).
 *
 * @param nodes the nodes, one per line of the reply
 */
record ClusterNodes(List<Node> nodes) {

	static ClusterNodes parse(@Nullable String clusterNodes) {
		Assert.state(clusterNodes != null, "CLUSTER NODES answered nil");
		List<Node> view = new ArrayList<>();
		for (String line : clusterNodes.strip().split("\n")) {
			String[] fields = line.strip().split(" ");
			String address = fields[1].split("@")[0];
			int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
			List<int[]> slots = new ArrayList<>();
			for (int i = 8; i < fields.length; i++) {
				if (!fields[i].startsWith("[")) {
					String[] range = fields[i].split("-");
					slots.add(new int[] { Integer.parseInt(range[0]), Integer.parseInt(range[range.length - 1]) });
				}
			}
			view.add(new Node(fields[0], port, List.of(fields[2].split(",")), fields[3], fields[7], slots));
		}
		return new ClusterNodes(view);
	}

	/** The node whose view this is. */
	Node myself() {
		return this.nodes.stream().filter(Node::isMyself).findFirst().orElseThrow();
	}

	/** The node on a port, or {@code null} if the view has none. */
	@Nullable Node at(int port) {
		return this.nodes.stream().filter((node) -> node.port() == port).findFirst().orElse(null);
	}

	/** The master that serves a slot, or {@code null} if none does. */
	@Nullable Node ownerOf(int slot) {
		for (Node node : this.nodes) {
			if (node.isMaster()) {
				for (int[] range : node.slots()) {
					if (range[0] <= slot && slot <= range[1]) {
						return node;
					}
				}
			}
		}
		return null;
	}

	/** A replica of a master that is not marked failed, or {@code null}. */
	@Nullable Node replicaOf(String masterId) {
		return this.nodes.stream()
			.filter((node) -> masterId.equals(node.masterId()) && !node.flags().contains("fail"))
			.findFirst()
			.orElse(null);
	}

	long connected() {
		return this.nodes.stream().filter(Node::isConnected).count();
	}

	long masters() {
		return this.nodes.stream().filter(Node::isMaster).count();
	}

	/**
	 * One line of {@code CLUSTER NODES}.
	 */
	record Node(String id, int port, List<String> flags, String masterId, String linkState, List<int[]> slots) {

		boolean isMyself() {
			return this.flags.contains("myself");
		}

		boolean isMaster() {
			return this.flags.contains("master");
		}

		boolean isConnected() {
			return "connected".equals(this.linkState);
		}

	}

}
