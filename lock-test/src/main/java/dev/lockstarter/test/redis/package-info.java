/**
 * A real Redis server for tests: {@link dev.lockstarter.test.redis.RedisServer}, started
 * from a local {@code redis-server} binary or a container, and the JUnit 5
 * {@link dev.lockstarter.test.redis.RedisServerExtension} that manages one per test
 * class; a three-master {@link dev.lockstarter.test.redis.RedisCluster}, with or without
 * a replica per master, with its
 * {@link dev.lockstarter.test.redis.RedisClusterExtension}, and a
 * {@link dev.lockstarter.test.redis.RedisSentinel} setup for failover tests.
 */
@NullMarked
package dev.lockstarter.test.redis;

import org.jspecify.annotations.NullMarked;
