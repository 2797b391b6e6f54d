package dev.lockstarter.benchmarks;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memcached.MemcachedLockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * The waiting locks whose handoff {@link HandoffLatency} measures: each one's client as
 * an application would set it up, with a blocking {@code lock} that waits up to
 * {@link #MAX_WAIT} and an {@code unlock}. Every implementation is used by one thread
 * only, since Redisson's and Spring Integration's locks belong to the thread that took
 * them.
 */
enum HandoffLock {

	/**
	 * This starter, woken by its release notification (pub/sub), polling as a safety net.
	 */
	STARTER("lock-starter LockTemplate (notified)") {
		@Override
		Client open(String host, int port) {
			return StarterClient.redis(host, port, true);
		}
	},

	/**
	 * This starter's reactive template on the same store, its {@code Mono} blocked on by
	 * the waiting thread: the reactive waiter takes the release handoff too.
	 */
	STARTER_REACTIVE("lock-starter ReactiveLockTemplate (notified)") {
		@Override
		Client open(String host, int port) {
			return new RedisHandoffClients.ReactiveStarterClient(host, port);
		}
	},

	/**
	 * This starter with the notifications hidden: what a waiter does when pub/sub is
	 * lost.
	 */
	STARTER_POLLING("lock-starter LockTemplate (polling only)") {
		@Override
		Client open(String host, int port) {
			return StarterClient.redis(host, port, false);
		}
	},

	/**
	 * Redisson {@code RLock.tryLock(wait, lease, unit)}: woken by its pub/sub channel.
	 */
	REDISSON("Redisson RLock") {
		@Override
		Client open(String host, int port) {
			return new RedisHandoffClients.RedissonClientLock(host, port);
		}
	},

	/** Spring Integration {@code RedisLockRegistry} with its default spin lock. */
	SPRING_INTEGRATION_SPIN("Spring Integration RedisLockRegistry (SPIN_LOCK)") {
		@Override
		Client open(String host, int port) {
			return new RedisHandoffClients.SpringIntegrationClient(host, port,
					RedisLockRegistry.RedisLockType.SPIN_LOCK);
		}
	},

	/** Spring Integration {@code RedisLockRegistry} with its pub/sub lock. */
	SPRING_INTEGRATION_PUB_SUB("Spring Integration RedisLockRegistry (PUB_SUB_LOCK)") {
		@Override
		Client open(String host, int port) {
			return new RedisHandoffClients.SpringIntegrationClient(host, port,
					RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
		}
	},

	/**
	 * The reference: a lock written directly on Lettuce ({@code SET NX PX}, a
	 * compare-and-delete script that publishes the release), whose waiter's pub/sub
	 * listener sends the {@code SET} as soon as the release message arrives; see
	 * {@link RawLettucePubSubClient}.
	 */
	RAW_LETTUCE_PUB_SUB("raw Lettuce reference (pub/sub + SET NX PX)") {
		@Override
		Client open(String host, int port) {
			return new RawLettucePubSubClient(host, port, false);
		}
	},

	/**
	 * The second reference: the subscriber sends the {@code SET} on its own connection
	 * and wakes the waiting thread with the reply; see {@link RawLettucePubSubClient}.
	 */
	RAW_LETTUCE_SUBSCRIBER_ACQUIRES("raw Lettuce, subscriber acquires, waiter woken") {
		@Override
		Client open(String host, int port) {
			return new RawLettucePubSubClient(host, port, true);
		}
	},

	/**
	 * This starter on {@code EtcdLockStore}, woken by its watch, polling as a safety net.
	 */
	ETCD_STARTER("lock-starter LockTemplate on EtcdLockStore (notified)", Server.ETCD) {
		@Override
		Client open(String host, int port) {
			return FailoverHandoffClients.starterOnEtcd(host, port);
		}
	},

	/** jetcd's client of etcd's lock service, on a kept-alive session lease. */
	ETCD_JETCD_LOCK("jetcd lock service (session lease)", Server.ETCD) {
		@Override
		Client open(String host, int port) {
			return new FailoverHandoffClients.JetcdLock(host, port);
		}
	},

	/**
	 * This starter on {@code ZooKeeperLockStore}, woken by its recursive watch, polling
	 * as a safety net.
	 */
	ZOOKEEPER_STARTER("lock-starter LockTemplate on ZooKeeperLockStore (notified)", Server.ZOOKEEPER) {
		@Override
		Client open(String host, int port) {
			return FailoverHandoffClients.starterOnZooKeeper(host, port);
		}
	},

	/** Curator's {@code InterProcessMutex}. */
	ZOOKEEPER_CURATOR_MUTEX("Curator InterProcessMutex", Server.ZOOKEEPER) {
		@Override
		Client open(String host, int port) {
			return new FailoverHandoffClients.CuratorMutex(host, port);
		}
	},

	/** Spring Integration's {@code ZookeeperLockRegistry}. */
	ZOOKEEPER_SPRING_INTEGRATION("Spring Integration ZookeeperLockRegistry", Server.ZOOKEEPER) {
		@Override
		Client open(String host, int port) {
			return new FailoverHandoffClients.SpringIntegrationZooKeeper(host, port);
		}
	},

	/**
	 * The reference: the floor of a handoff on a lock node that is never removed (a
	 * notification, a read, a write at the version read), written directly on the
	 * ZooKeeper client; see {@link ZooKeeperVersionedReference}.
	 */
	ZOOKEEPER_VERSIONED_REFERENCE("raw ZooKeeper reference (watch, read, write at version)", Server.ZOOKEEPER) {
		@Override
		Client open(String host, int port) {
			return new ZooKeeperVersionedReference(host, port);
		}
	},

	/**
	 * This starter on {@code PostgreSqlJdbcLockStore}, woken by
	 * {@code LISTEN}/{@code NOTIFY}, polling as a safety net.
	 */
	POSTGRES_STARTER("lock-starter LockTemplate on PostgreSqlJdbcLockStore (notified)", Server.POSTGRES) {
		@Override
		Client open(String host, int port) {
			return PostgresHandoffClients.starter(host, port);
		}
	},

	/**
	 * Spring Integration's {@code JdbcLockRegistry} on {@code DefaultLockRepository},
	 * with its defaults: it polls every 100 ms.
	 */
	POSTGRES_SPRING_INTEGRATION("Spring Integration JdbcLockRegistry (polls every 100 ms)", Server.POSTGRES) {
		@Override
		Client open(String host, int port) {
			return new PostgresHandoffClients.SpringIntegration(host, port);
		}
	},

	/**
	 * ShedLock's {@code JdbcTemplateLockProvider}, which never waits: the waiter calls
	 * {@code lock()} again every 100 ms.
	 */
	POSTGRES_SHEDLOCK("ShedLock JdbcTemplateLockProvider (no wait; lock() retried every 100 ms)", Server.POSTGRES) {
		@Override
		Client open(String host, int port) {
			return new PostgresHandoffClients.ShedLock(host, port);
		}
	},

	/**
	 * The reference: one {@code SELECT 1} round trip on an open connection, timed in the
	 * holder's JVM after the same pause as a handoff.
	 */
	POSTGRES_ROUND_TRIP("PostgreSQL round trip (SELECT 1 on an open connection; reference)", Server.POSTGRES) {
		@Override
		Client open(String host, int port) {
			return new PostgresHandoffClients.RoundTrip(host, port);
		}

		@Override
		boolean roundTrip() {
			return true;
		}
	},

	/**
	 * The second reference: one uncontended acquisition on {@code JdbcLockStore}, the
	 * store's own round trip, timed in the holder's JVM.
	 */
	POSTGRES_ACQUIRE_ROUND_TRIP("JdbcLockStore acquire of a free key (store round trip; reference)", Server.POSTGRES) {
		@Override
		Client open(String host, int port) {
			return new PostgresHandoffClients.AcquireRoundTrip(host, port);
		}

		@Override
		boolean roundTrip() {
			return true;
		}
	},

	/**
	 * This starter on {@code MemcachedLockStore}, which sends no release notifications:
	 * the waiter polls.
	 */
	MEMCACHED_STARTER("lock-starter LockTemplate on MemcachedLockStore (polling)", Server.MEMCACHED) {
		@Override
		Client open(String host, int port) {
			MemcachedLockStore store = ClockStoreClients.memcached(host, port);
			return new StarterClient(store, () -> {
				try {
					store.destroy();
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
		}
	},

	/**
	 * This starter on {@code DynamoDbLockStore} (DynamoDB Local in the holder's JVM),
	 * which sends no release notifications: the waiter polls.
	 */
	DYNAMODB_STARTER("lock-starter LockTemplate on DynamoDbLockStore (polling)", Server.DYNAMODB) {
		@Override
		Client open(String host, int port) {
			DynamoDbClient client = ClockStoreClients.dynamoDbClient("http://" + host + ":" + port);
			return new StarterClient(ClockStoreClients.dynamoDb(client), client::close);
		}
	};

	/** The time-to-live of every lock. */
	static final Duration TTL = Duration.ofSeconds(30);

	/** The longest a waiter waits. */
	static final Duration MAX_WAIT = Duration.ofSeconds(10);

	private final String description;

	private final Server server;

	HandoffLock(String description) {
		this(description, Server.REDIS);
	}

	HandoffLock(String description, Server server) {
		this.description = description;
		this.server = server;
	}

	String description() {
		return this.description;
	}

	/** The kind of server the lock runs on. */
	Server server() {
		return this.server;
	}

	/**
	 * Whether this is a reference measured in the holder's JVM alone, without a waiter:
	 * the time of its client's {@code lock}, one round trip to the server.
	 */
	boolean roundTrip() {
		return false;
	}

	/**
	 * The servers a lock can run on; {@link HandoffLatency} starts one of each kind that
	 * its locks need.
	 */
	enum Server {

		/** One {@code redis-server}. */
		REDIS,

		/** One etcd member. */
		ETCD,

		/** One standalone ZooKeeper server. */
		ZOOKEEPER,

		/**
		 * One PostgreSQL server, the tables of this starter, Spring Integration and
		 * ShedLock created before any client opens.
		 */
		POSTGRES,

		/** One {@code memcached}. */
		MEMCACHED,

		/**
		 * DynamoDB Local, in the measuring JVM, its lock table created before any client
		 * opens.
		 */
		DYNAMODB

	}

	abstract Client open(String host, int port);

	/**
	 * One application's client of a lock implementation.
	 */
	interface Client extends AutoCloseable {

		/** Take the lock on {@code key}, waiting up to {@link #MAX_WAIT}. */
		void lock(String key) throws Exception;

		/**
		 * Take the lock on {@code key} like {@link #lock(String)}, and return the
		 * {@link System#nanoTime()} at which it was acquired: by default, read as soon as
		 * {@code lock} returns.
		 */
		default long lockTimed(String key) throws Exception {
			lock(key);
			return System.nanoTime();
		}

		void unlock(String key);

		@Override
		void close();

	}

	/**
	 * This starter's {@link LockTemplate} on a store, waiting up to {@link #MAX_WAIT}:
	 * woken by the store's release notification if it has one, polling as the safety net.
	 */
	static final class StarterClient implements Client {

		private final LockTemplate locks;

		private final Runnable close;

		private final Map<String, Lease> leases = new HashMap<>();

		private final LockOptions options = LockOptions.ttl(TTL).withWaitTime(MAX_WAIT);

		StarterClient(LockStore store, Runnable close) {
			this.locks = new LockTemplate(store);
			this.close = close;
		}

		static StarterClient redis(String host, int port, boolean notified) {
			LettuceConnectionFactory connectionFactory = Variant.connectionFactory(host, port);
			RedisLockStore store = new RedisLockStore(connectionFactory);
			return new StarterClient(notified ? store : new RedisHandoffClients.PollingOnly(store), () -> {
				store.destroy();
				connectionFactory.destroy();
			});
		}

		LockTemplate locks() {
			return this.locks;
		}

		LockOptions options() {
			return this.options;
		}

		@Override
		public void lock(String key) {
			this.leases.put(key, this.locks.acquire(key, this.options));
		}

		@Override
		public void unlock(String key) {
			this.leases.remove(key).release();
		}

		@Override
		public void close() {
			this.locks.destroy();
			this.close.run();
		}

	}

}
