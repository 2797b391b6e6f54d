package dev.lockstarter.store.redis;

import org.jspecify.annotations.Nullable;

/**
 * What the store learned about its Redis deployment on first use.
 *
 * @param cluster whether it is a Redis Cluster, whose scripts may touch the keys of one
 * hash slot only
 * @param sharded the sharded release subscriber, on a cluster reached through Lettuce;
 * {@code null} where releases are announced on the classic channel
 */
record RedisTopology(boolean cluster, @Nullable ShardedReleaseSubscriber sharded) {

	/**
	 * Return the script argument that tells a release script to announce by
	 * {@code SPUBLISH} ({@code "1"}) or by {@code PUBLISH} ({@code "0"}).
	 * @return the flag
	 */
	String shardedFlag() {
		return (this.sharded != null) ? "1" : "0";
	}

}
