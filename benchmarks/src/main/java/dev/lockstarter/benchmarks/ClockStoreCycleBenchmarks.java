package dev.lockstarter.benchmarks;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import dev.lockstarter.benchmarks.FailoverStoreCycleBenchmarks.EtcdLockTemplate;
import dev.lockstarter.benchmarks.FailoverStoreCycleBenchmarks.ServerLock;
import dev.lockstarter.benchmarks.FailoverStoreCycleBenchmarks.ZooKeeperLockTemplate;
import dev.lockstarter.benchmarks.LockCycleBenchmarks.Keys;
import dev.lockstarter.benchmarks.LockCycleBenchmarks.Outcomes;
import dev.lockstarter.store.dynamodb.DynamoDbLockStore;
import dev.lockstarter.store.memcached.MemcachedLockStore;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServer;
import dev.lockstarter.test.memcached.MemcachedServer;

/**
 * The uncontended acquire + release cycle of {@code LockTemplate}, one thread, on the
 * four stores whose expiry was judged by the clients' wall clocks and is now judged by
 * observed silence (etcd, ZooKeeper, Memcached, DynamoDB Local):
 * {@code benchmarks/clock.sh} runs it on this checkout and on an earlier revision, side
 * by side. The etcd and ZooKeeper cycles are those of
 * {@link FailoverStoreCycleBenchmarks}; every benchmark starts its own server for its
 * trial, and keys rotate as in {@link LockCycleBenchmarks}: after the first round every
 * acquisition finds an existing, free record.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Threads(1)
public class ClockStoreCycleBenchmarks {

	@Benchmark
	public boolean etcdLockTemplate(EtcdLockTemplate lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean zooKeeperLockTemplate(ZooKeeperLockTemplate lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean memcachedLockTemplate(MemcachedLockTemplate lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean dynamoDbLockTemplate(DynamoDbLockTemplate lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	/**
	 * {@code LockTemplate} on {@code MemcachedLockStore}, on a fresh {@code memcached}.
	 */
	public static class MemcachedLockTemplate extends ServerLock {

		private MemcachedServer server;

		@Override
		AutoCloseable startServer() {
			this.server = MemcachedServer.start();
			return this.server;
		}

		@Override
		LockCycle open() {
			MemcachedLockStore store = ClockStoreClients.memcached(this.server.host(), this.server.port());
			return LockCycle.lockTemplate(store, PostgresPeerCycles.TTL, () -> {
				try {
					store.destroy();
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
		}

	}

	/**
	 * {@code LockTemplate} on {@code DynamoDbLockStore}, on a fresh DynamoDB Local in the
	 * benchmark's JVM (in memory).
	 */
	public static class DynamoDbLockTemplate extends ServerLock {

		private DynamoDbLocalServer server;

		@Override
		AutoCloseable startServer() {
			this.server = DynamoDbLocalServer.start();
			return this.server;
		}

		@Override
		LockCycle open() {
			ClockStoreClients.createDynamoDbTable(this.server.endpoint().toString());
			DynamoDbClient client = ClockStoreClients.dynamoDbClient(this.server.endpoint().toString());
			DynamoDbLockStore store = ClockStoreClients.dynamoDb(client);
			return LockCycle.lockTemplate(store, PostgresPeerCycles.TTL, client::close);
		}

	}

}
