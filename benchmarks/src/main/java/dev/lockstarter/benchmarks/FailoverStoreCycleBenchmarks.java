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
 * JDBC provider ({@link PostgresPeerCycles}). Run by {@code benchmarks/stores.sh}, which
 * takes the benchmarks in opposite orders over several passes of one fork each.
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
	public boolean etcdJetcdLock(EtcdJetcdLock lock, Keys keys, Outcomes outcomes) {
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
	 * A PostgreSQL server and one lock's client on it, for one trial.
	 */
	@State(Scope.Benchmark)
	public abstract static class PostgresLock {

		private PostgresServer server;

		private LockCycle cycle;

		@Setup(Level.Trial)
		public void start() {
			this.server = PostgresServer.start();
			this.cycle = open(this.server);
		}

		@TearDown(Level.Trial)
		public void stop() {
			try {
				this.cycle.close();
			}
			finally {
				this.server.close();
			}
		}

		abstract LockCycle open(PostgresServer server);

		final boolean cycle(String key) {
			return this.cycle.cycle(key);
		}

	}

	public static class PostgresLockTemplate extends PostgresLock {

		@Override
		LockCycle open(PostgresServer server) {
			return PostgresPeerCycles.lockTemplate(server);
		}

	}

	public static class PostgresSpringIntegration extends PostgresLock {

		@Override
		LockCycle open(PostgresServer server) {
			return PostgresPeerCycles.springIntegration(server);
		}

	}

	public static class PostgresShedLock extends PostgresLock {

		@Override
		LockCycle open(PostgresServer server) {
			return PostgresPeerCycles.shedLock(server);
		}

	}

	/**
	 * A single-member etcd server and one lock's client on it, for one trial.
	 */
	@State(Scope.Benchmark)
	public abstract static class EtcdLock {

		private EtcdServer server;

		private LockCycle cycle;

		@Setup(Level.Trial)
		public void start() {
			this.server = EtcdServer.start();
			this.cycle = open(this.server);
		}

		@TearDown(Level.Trial)
		public void stop() {
			try {
				this.cycle.close();
			}
			finally {
				this.server.close();
			}
		}

		abstract LockCycle open(EtcdServer server);

		final boolean cycle(String key) {
			return this.cycle.cycle(key);
		}

	}

	public static class EtcdJetcdLock extends EtcdLock {

		@Override
		LockCycle open(EtcdServer server) {
			return EtcdPeerCycles.jetcdLock(server);
		}

	}

	/**
	 * A standalone ZooKeeper server and one lock's client on it, for one trial.
	 */
	@State(Scope.Benchmark)
	public abstract static class ZooKeeperLock {

		private ZooKeeperServer server;

		private LockCycle cycle;

		@Setup(Level.Trial)
		public void start() {
			this.server = ZooKeeperServer.start();
			this.cycle = open(this.server);
		}

		@TearDown(Level.Trial)
		public void stop() {
			try {
				this.cycle.close();
			}
			finally {
				this.server.close();
			}
		}

		abstract LockCycle open(ZooKeeperServer server);

		final boolean cycle(String key) {
			return this.cycle.cycle(key);
		}

	}

	public static class ZooKeeperCuratorMutex extends ZooKeeperLock {

		@Override
		LockCycle open(ZooKeeperServer server) {
			return ZooKeeperPeerCycles.curatorMutex(server);
		}

	}

	public static class ZooKeeperSpringIntegration extends ZooKeeperLock {

		@Override
		LockCycle open(ZooKeeperServer server) {
			return ZooKeeperPeerCycles.springIntegration(server);
		}

	}

}
