package dev.lockstarter.benchmarks;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import dev.lockstarter.benchmarks.LockCycleBenchmarks.Keys;
import dev.lockstarter.benchmarks.LockCycleBenchmarks.Outcomes;
import dev.lockstarter.test.etcd.EtcdServer;
import dev.lockstarter.test.postgres.PostgresServer;
import dev.lockstarter.test.zookeeper.ZooKeeperServer;

/**
 * The uncontended acquire + release cycle of this starter's stores that keep a lock
 * across a server's failure, each beside the peers' locks on the same kind of server, one
 * thread: on PostgreSQL, Spring Integration's {@code JdbcLockRegistry} and ShedLock's
 * JDBC provider ({@link PostgresPeerCycles}); on etcd, jetcd's client of etcd's lock
 * service, and the reference of the two bare transactions that this starter's cycle sends
 * ({@link EtcdPeerCycles}); on ZooKeeper, Curator's {@code InterProcessMutex} and Spring
 * Integration's {@code ZookeeperLockRegistry} ({@link ZooKeeperPeerCycles}). Run by
 * {@code benchmarks/stores.sh}, which takes the benchmarks in opposite orders over
 * several passes of one fork each.
 * <p>
 * Every benchmark starts its own server for its trial, so that no table or cache of one
 * lock warms another's. Keys rotate as in {@link LockCycleBenchmarks}: after the first
 * round every acquisition finds an existing, free row.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Threads(1)
public class FailoverStoreCycleBenchmarks {

	@Benchmark
	public boolean postgresLockTemplate(PostgresLockTemplate lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean postgresSpringIntegration(PostgresSpringIntegration lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean postgresShedLock(PostgresShedLock lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean etcdLockTemplate(EtcdLockTemplate lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean etcdJetcdLock(EtcdJetcdLock lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean etcdTwoTransactionsReference(EtcdTwoTransactions lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean zooKeeperLockTemplate(ZooKeeperLockTemplate lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean zooKeeperCuratorMutex(ZooKeeperCuratorMutex lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	@Benchmark
	public boolean zooKeeperSpringIntegration(ZooKeeperSpringIntegration lock, Keys keys, Outcomes outcomes) {
		return outcomes.count(lock.cycle(keys.next()));
	}

	/**
	 * A server and one lock's client on it, for one trial.
	 */
	@State(Scope.Benchmark)
	public abstract static class ServerLock {

		private AutoCloseable server;

		private LockCycle cycle;

		@Setup(Level.Trial)
		public void start() throws Exception {
			this.server = startServer();
			try {
				this.cycle = open();
			}
			catch (RuntimeException ex) {
				this.server.close();
				throw ex;
			}
		}

		@TearDown(Level.Trial)
		public void stop() throws Exception {
			try {
				this.cycle.close();
			}
			finally {
				this.server.close();
			}
		}

		/** Start the server, which the subclass keeps for {@link #open()}. */
		abstract AutoCloseable startServer();

		/** Open the lock's client on the server. */
		abstract LockCycle open();

		final boolean cycle(String key) {
			return this.cycle.cycle(key);
		}

	}

	/**
	 * A fresh PostgreSQL server.
	 */
	public abstract static class PostgresLock extends ServerLock {

		PostgresServer server;

		@Override
		AutoCloseable startServer() {
			this.server = PostgresServer.start();
			return this.server;
		}

	}

	public static class PostgresLockTemplate extends PostgresLock {

		@Override
		LockCycle open() {
			return PostgresPeerCycles.lockTemplate(this.server);
		}

	}

	public static class PostgresSpringIntegration extends PostgresLock {

		@Override
		LockCycle open() {
			return PostgresPeerCycles.springIntegration(this.server);
		}

	}

	public static class PostgresShedLock extends PostgresLock {

		@Override
		LockCycle open() {
			return PostgresPeerCycles.shedLock(this.server);
		}

	}

	/**
	 * A fresh single-member etcd server.
	 */
	public abstract static class EtcdLock extends ServerLock {

		EtcdServer server;

		@Override
		AutoCloseable startServer() {
			this.server = EtcdServer.start();
			return this.server;
		}

	}

	public static class EtcdLockTemplate extends EtcdLock {

		@Override
		LockCycle open() {
			return EtcdPeerCycles.lockTemplate(this.server);
		}

	}

	public static class EtcdJetcdLock extends EtcdLock {

		@Override
		LockCycle open() {
			return EtcdPeerCycles.jetcdLock(this.server);
		}

	}

	public static class EtcdTwoTransactions extends EtcdLock {

		@Override
		LockCycle open() {
			return EtcdPeerCycles.twoTransactions(this.server);
		}

	}

	/**
	 * A fresh standalone ZooKeeper server.
	 */
	public abstract static class ZooKeeperLock extends ServerLock {

		ZooKeeperServer server;

		@Override
		AutoCloseable startServer() {
			this.server = ZooKeeperServer.start();
			return this.server;
		}

	}

	public static class ZooKeeperLockTemplate extends ZooKeeperLock {

		@Override
		LockCycle open() {
			return ZooKeeperPeerCycles.lockTemplate(this.server);
		}

	}

	public static class ZooKeeperCuratorMutex extends ZooKeeperLock {

		@Override
		LockCycle open() {
			return ZooKeeperPeerCycles.curatorMutex(this.server);
		}

	}

	public static class ZooKeeperSpringIntegration extends ZooKeeperLock {

		@Override
		LockCycle open() {
			return ZooKeeperPeerCycles.springIntegration(this.server);
		}

	}

}
