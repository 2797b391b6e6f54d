package dev.lockstarter.docs.checks;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.FencingOnDemandLockStore;
import dev.lockstarter.store.InspectableLockStore;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ObservedExpiry;
import dev.lockstarter.store.ReleaseHandoffLockStore;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import dev.lockstarter.store.SharedLockStore;
import dev.lockstarter.store.dynamodb.DynamoDbLockStore;
import dev.lockstarter.store.etcd.EtcdLockStore;
import dev.lockstarter.store.jdbc.JdbcLockStore;
import dev.lockstarter.store.jdbc.PostgreSqlJdbcLockStore;
import dev.lockstarter.store.memcached.MemcachedLockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.store.zookeeper.ZooKeeperLockStore;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.type.filter.AssignableTypeFilter;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * What each built-in lock store can do, one row per store (two for Redis, whose Cluster
 * takes several keys differently, and two for JDBC, whose store on PostgreSQL is a
 * subclass that announces releases), as the store classes declare it: the capability
 * interfaces each implements, and whether it counts a lock's time-to-live with
 * {@link ObservedExpiry}, on the contender's clock. Where no type of the main code
 * declares a fact, this class does, each time with its reason: which stores return a
 * fencing token in their acquisition's reply, whose clock counts the time-to-live of the
 * stores that count it themselves, and that Redis Cluster takes keys of several hash
 * slots one by one. A declaration about a class holds for its subclasses too.
 * <p>
 * The table is rendered into docs/stores.md between {@link #START} and {@link #END}, and
 * {@link #storesWith} answers the lists of stores that other pages repeat.
 */
final class StoreFacts {

	static final String PAGE = "docs/stores.md";

	static final String START = "<!-- store-facts: generated from the store classes by StoreFactsTests; do not edit -->";

	static final String END = "<!-- end store-facts -->";

	/** The package under which every built-in store lives. */
	static final String STORE_PACKAGE = "dev.lockstarter.store";

	/**
	 * The stores whose acquisition's reply carries the fencing token
	 * ({@code AcquireReply.fencingToken()}): no type says so, since the reply is the same
	 * class for every store. Memcached issues none (a counter in Memcached can be lost as
	 * its locks can), and Redis draws its tokens on demand
	 * ({@link FencingOnDemandLockStore}).
	 */
	private static final Set<Class<?>> FENCING_IN_REPLY = Set.of(InMemoryLockStore.class, DynamoDbLockStore.class,
			JdbcLockStore.class, EtcdLockStore.class, ZooKeeperLockStore.class);

	/**
	 * Whose clock counts the time-to-live of the stores that count it themselves, without
	 * {@link ObservedExpiry}: no type declares it.
	 */
	private static final Map<Class<?>, String> OWN_CLOCKS = Map.of(RedisLockStore.class, "the Redis server's",
			InMemoryLockStore.class, "this JVM's monotonic clock", JdbcLockStore.class, "the database server's");

	/**
	 * What a store's {@link ObservedExpiry} cell adds: DynamoDB can be switched to the
	 * clients' wall clocks, which its constructor takes as an option, not as a type.
	 */
	private static final Map<Class<?>, String> CLOCK_NOTES = Map.of(DynamoDbLockStore.class,
			" (the clients' wall clocks in the opt-in `client-clock` mode)");

	/** The rows, in the order of the table. */
	private static final List<Entry> ENTRIES = List.of(
			// Acquisitions that wait for replicas are taken one by one by the store
			// (RedisLockStore#tryAcquireAll): a setting, not a type
			new Entry("Redis", "[Redis](stores/redis.md), one server or Sentinel", "redis", RedisLockStore.class)
				.withMultiKeyNote(", except with `lock.redis.min-replica-acks` (one by one, in order)"),
			// A script touches the keys of one hash slot only: keys of several slots are
			// taken one by one by the store (RedisLockStore#tryAcquireAll)
			new Entry("Redis Cluster", "[Redis Cluster](stores/redis.md#redis-cluster)", "redis", RedisLockStore.class)
				.withPartialMultiKey("only for keys of one hash slot; others one by one, in order"),
			new Entry("in-memory", "[in-memory](stores/memory.md), one JVM", "memory", InMemoryLockStore.class),
			new Entry("Memcached", "[Memcached](stores/memcached.md)", "memcached", MemcachedLockStore.class),
			new Entry("DynamoDB", "[DynamoDB](stores/dynamodb.md)", "dynamodb", DynamoDbLockStore.class),
			// JdbcLockStore.create and lock.store=jdbc build the subclass on PostgreSQL
			new Entry("JDBC on PostgreSQL", "[JDBC](stores/jdbc.md) on PostgreSQL", "jdbc",
					PostgreSqlJdbcLockStore.class),
			new Entry("JDBC on MariaDB and H2", "[JDBC](stores/jdbc.md) on MariaDB, H2", "jdbc", JdbcLockStore.class),
			new Entry("etcd", "[etcd](stores/etcd.md)", "etcd", EtcdLockStore.class),
			new Entry("ZooKeeper", "[ZooKeeper](stores/zookeeper.md)", "zookeeper", ZooKeeperLockStore.class));

	private final List<Row> rows;

	private StoreFacts(List<Row> rows) {
		this.rows = rows;
	}

	/**
	 * The facts of the built-in stores, read from their classes.
	 * @return the facts
	 */
	static StoreFacts ofBuiltInStores() {
		return new StoreFacts(ENTRIES.stream().map(StoreFacts::row).toList());
	}

	/**
	 * The names of the rows, as lists of stores name them: {@code Redis} (one server or
	 * Sentinel), {@code Redis Cluster}, {@code in-memory}, ...
	 * @return the names, in the order of the table
	 */
	List<String> names() {
		return this.rows.stream().map(Row::name).toList();
	}

	/**
	 * The stores that have a fact, or that lack it.
	 * @param fact the fact
	 * @param has {@code true} for the stores that have it, {@code false} for the others
	 * @return their names, in the order of the table
	 */
	Set<String> storesWith(Fact fact, boolean has) {
		return this.rows.stream()
			.filter((row) -> row.has(fact) == has)
			.map(Row::name)
			.collect(Collectors.toCollection(LinkedHashSet::new));
	}

	/**
	 * The table, as it stands between {@link #START} and {@link #END}.
	 * @return the table's lines
	 */
	List<String> render() {
		List<String> lines = new ArrayList<>();
		StringBuilder header = new StringBuilder("| store | `lock.store` |");
		StringBuilder rule = new StringBuilder("|---|---|");
		for (Fact fact : Fact.columns()) {
			header.append(' ').append(fact.heading()).append(" |");
			rule.append("---|");
		}
		lines.add(header.toString());
		lines.add(rule.toString());
		for (Row row : this.rows) {
			StringBuilder line = new StringBuilder("| ").append(row.label())
				.append(" | `")
				.append(row.property())
				.append("` |");
			for (Fact fact : Fact.columns()) {
				line.append(' ').append(row.cell(fact)).append(" |");
			}
			lines.add(line.toString());
		}
		return lines;
	}

	/**
	 * The public store classes under {@link #STORE_PACKAGE} on the class path that no row
	 * describes.
	 * @return their names, sorted
	 */
	Set<String> storeClassesWithoutARow() {
		ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false);
		scanner.addIncludeFilter(new AssignableTypeFilter(LockStore.class));
		Set<String> described = this.rows.stream().map((row) -> row.type().getName()).collect(Collectors.toSet());
		Set<String> missing = new TreeSet<>();
		for (BeanDefinition candidate : scanner.findCandidateComponents(STORE_PACKAGE)) {
			String name = candidate.getBeanClassName();
			if (name != null && isPublic(name) && !described.contains(name)) {
				missing.add(name);
			}
		}
		return missing;
	}

	private static boolean isPublic(String className) {
		Class<?> type = ClassUtils.resolveClassName(className, StoreFacts.class.getClassLoader());
		return Modifier.isPublic(type.getModifiers());
	}

	private static Row row(Entry entry) {
		Class<?> type = entry.type();
		Map<Fact, Boolean> has = new EnumMap<>(Fact.class);
		Map<Fact, String> cells = new EnumMap<>(Fact.class);

		boolean shared = SharedLockStore.class.isAssignableFrom(type);
		has.put(Fact.SHARED_LOCKS, shared);
		cells.put(Fact.SHARED_LOCKS, shared ? "yes" : "no: mutexes only");

		boolean onDemand = FencingOnDemandLockStore.class.isAssignableFrom(type);
		boolean fencing = onDemand || inReply(type);
		has.put(Fact.FENCING_TOKENS, fencing);
		cells.put(Fact.FENCING_TOKENS,
				onDemand ? "yes, drawn when first read" : fencing ? "yes" : "**no**: `fencingToken()` answers 0");

		boolean results = ResultStoringLockStore.class.isAssignableFrom(type);
		has.put(Fact.STORED_RESULTS, results);
		cells.put(Fact.STORED_RESULTS, results ? "yes" : "no");

		boolean multiKey = MultiKeyLockStore.class.isAssignableFrom(type);
		has.put(Fact.MULTI_KEY_STORE, multiKey);
		String partial = entry.partialMultiKey();
		has.put(Fact.ATOMIC_MULTI_KEY, multiKey && partial == null);
		if (!multiKey) {
			cells.put(Fact.ATOMIC_MULTI_KEY, "no: `LockTemplate` takes the keys one by one, in order");
		}
		else {
			cells.put(Fact.ATOMIC_MULTI_KEY, (partial != null) ? partial : "yes" + entry.multiKeyNote());
		}

		boolean notifies = ReleaseNotifyingLockStore.class.isAssignableFrom(type);
		has.put(Fact.RELEASE_NOTIFICATIONS, notifies);
		cells.put(Fact.RELEASE_NOTIFICATIONS,
				!notifies ? "no: waiters poll" : ReleaseHandoffLockStore.class.isAssignableFrom(type)
						? "yes, and the store acquires for the waiter it wakes" : "yes");

		boolean inspectable = InspectableLockStore.class.isAssignableFrom(type);
		has.put(Fact.HOLDERS_LISTED, inspectable);
		cells.put(Fact.HOLDERS_LISTED, inspectable ? "yes" : "no");

		boolean observed = countsWithObservedExpiry(type);
		has.put(Fact.CONTENDER_CLOCK, observed);
		String ownClock = declared(OWN_CLOCKS, type);
		String clockNote = declared(CLOCK_NOTES, type);
		cells.put(Fact.CONTENDER_CLOCK,
				observed ? "the contender's monotonic clock" + ((clockNote != null) ? clockNote : "")
						: (ownClock != null) ? ownClock : "");
		return new Row(entry, has, cells);
	}

	/**
	 * Whether a store is declared to return its fencing token in the acquisition's reply:
	 * it, or a class it extends, is one of {@link #FENCING_IN_REPLY}.
	 */
	private static boolean inReply(Class<?> type) {
		return FENCING_IN_REPLY.stream().anyMatch((declared) -> declared.isAssignableFrom(type));
	}

	/**
	 * What a map declares of a store: of its own class, or else of a class it extends, so
	 * that {@code PostgreSqlJdbcLockStore} has the facts of {@code JdbcLockStore}.
	 */
	private static @Nullable String declared(Map<Class<?>, String> declarations, Class<?> type) {
		for (Class<?> current = type; current != null; current = current.getSuperclass()) {
			String declaration = declarations.get(current);
			if (declaration != null) {
				return declaration;
			}
		}
		return null;
	}

	/**
	 * Whether a store judges a holder by what a contender saw of it: it keeps an
	 * {@link ObservedExpiry}.
	 */
	private static boolean countsWithObservedExpiry(Class<?> type) {
		AtomicBoolean found = new AtomicBoolean();
		ReflectionUtils.doWithFields(type, (field) -> found.set(true),
				(field) -> ObservedExpiry.class.isAssignableFrom(field.getType()));
		return found.get();
	}

	/**
	 * Every problem of the declarations themselves: a store that counts its own
	 * time-to-live without saying whose clock does, or a declaration about a store whose
	 * classes now say otherwise.
	 * @return one message per problem
	 */
	List<String> declarationProblems() {
		List<String> problems = new ArrayList<>();
		for (Row row : this.rows) {
			Class<?> type = row.type();
			boolean observed = row.has(Fact.CONTENDER_CLOCK);
			String ownClock = declared(OWN_CLOCKS, type);
			if (!observed && ownClock == null) {
				problems.add(type.getName() + " keeps no ObservedExpiry: declare whose clock counts its time-to-live");
			}
			if (observed && ownClock != null) {
				problems.add(type.getName() + " keeps an ObservedExpiry, but is declared to count its time-to-live on "
						+ ownClock);
			}
			if (inReply(type) && FencingOnDemandLockStore.class.isAssignableFrom(type)) {
				problems.add(type.getName()
						+ " draws its fencing tokens on demand, but is declared to return them in its reply");
			}
			if (row.partialMultiKey() != null && !MultiKeyLockStore.class.isAssignableFrom(type)) {
				problems.add(type.getName() + " is no MultiKeyLockStore, but " + row.name()
						+ " is declared to take some keys at once");
			}
		}
		return problems;
	}

	/**
	 * Find a fact by the name that marks a list of stores in a page.
	 * @param key the name, such as {@code shared-locks}
	 * @return the fact, or empty for an unknown name
	 */
	static Optional<Fact> fact(String key) {
		return Arrays.stream(Fact.values()).filter((fact) -> fact.key().equals(key)).findFirst();
	}

	/**
	 * An ability of a store, with the name that marks a list of stores in a page.
	 */
	enum Fact {

		/** Permits and read/write locks: a {@link SharedLockStore}. */
		SHARED_LOCKS("shared-locks", "permits and read/write locks"),

		/** Fencing tokens: drawn on demand, or in the acquisition's reply. */
		FENCING_TOKENS("fencing-tokens", "fencing tokens"),

		/** Results kept next to locks: a {@link ResultStoringLockStore}. */
		STORED_RESULTS("stored-results", "results kept (single-flight, idempotent requests)"),

		/** Several keys taken at once, no one seeing part of them held. */
		ATOMIC_MULTI_KEY("atomic-multi-key", "several keys at once, atomically"),

		/**
		 * Several keys taken by the store itself, a {@link MultiKeyLockStore}, atomically
		 * or not; without it, {@code LockTemplate} takes them one by one. Not a column:
		 * the atomic column's cells say it.
		 */
		MULTI_KEY_STORE("multi-key-store", null),

		/** Releases announced to waiters: a {@link ReleaseNotifyingLockStore}. */
		RELEASE_NOTIFICATIONS("release-notifications", "release notifications"),

		/** The time-to-live counted by a contender watching the holder's record. */
		CONTENDER_CLOCK("contender-clock", "whose clock counts the TTL"),

		/** Holders listed and locks force-released: an {@link InspectableLockStore}. */
		HOLDERS_LISTED("holders-listed", "holders listed, stuck locks freed");

		private final String key;

		private final @Nullable String heading;

		Fact(String key, @Nullable String heading) {
			this.key = key;
			this.heading = heading;
		}

		String key() {
			return this.key;
		}

		/** The column's heading, or {@code null} for a fact that has no column. */
		@Nullable String heading() {
			return this.heading;
		}

		static List<Fact> columns() {
			return Arrays.stream(values()).filter((fact) -> fact.heading != null).toList();
		}

		static String keys() {
			return Arrays.stream(values()).map(Fact::key).collect(Collectors.joining(", "));
		}

	}

	/**
	 * A row as declared: the store's name in lists of stores, its label in the table, its
	 * {@code lock.store} value, its class; for a store that takes several keys at once
	 * only in part, what it does, and for one that takes them atomically, any exception.
	 */
	private record Entry(String name, String label, String property, Class<?> type, @Nullable String partialMultiKey,
			String multiKeyNote) {

		Entry(String name, String label, String property, Class<?> type) {
			this(name, label, property, type, null, "");
		}

		Entry withPartialMultiKey(String partialMultiKey) {
			return new Entry(this.name, this.label, this.property, this.type, partialMultiKey, this.multiKeyNote);
		}

		Entry withMultiKeyNote(String multiKeyNote) {
			return new Entry(this.name, this.label, this.property, this.type, this.partialMultiKey, multiKeyNote);
		}

	}

	/**
	 * A row of the table.
	 *
	 * @param entry what the row describes
	 * @param facts whether the store has each fact
	 * @param cells the text of each fact's cell
	 */
	record Row(Entry entry, Map<Fact, Boolean> facts, Map<Fact, String> cells) {

		String name() {
			return this.entry.name();
		}

		String label() {
			return this.entry.label();
		}

		String property() {
			return this.entry.property();
		}

		Class<?> type() {
			return this.entry.type();
		}

		@Nullable String partialMultiKey() {
			return this.entry.partialMultiKey();
		}

		boolean has(Fact fact) {
			return Boolean.TRUE.equals(this.facts.get(fact));
		}

		String cell(Fact fact) {
			return this.cells.getOrDefault(fact, "");
		}

	}

}
