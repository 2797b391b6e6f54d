package dev.lockstarter.store.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.test.contract.PermitsChecker;
import dev.lockstarter.test.contract.ReadersWriterChecker;
import dev.lockstarter.test.contract.SharedLockWorkload;
import dev.lockstarter.test.fault.BlockedTime;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Permits and read/write locks of the {@link RedisLockStore} on a real Redis server: two
 * instances (each its own connection factory and store) share the server, and checkers
 * count the holders inside, with negative controls that show the checkers catching too
 * many. Each operation is one script call, and fails within the store's timeout while
 * Redis is paused. Every test gets a fresh server.
 */
class RedisSharedLockStoreTests {

	private static final Duration TTL = Duration.ofSeconds(10);

	@RegisterExtension
	final RedisServerExtension redis = new RedisServerExtension();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<RedisLockStore> stores = new ArrayList<>();

	private final List<LockTemplate> templates = new ArrayList<>();

	private RedisLockStore store;

	private RedisLockStore otherStore;

	private LockTemplate locks;

	private LockTemplate otherLocks;

	@BeforeEach
	void createInstances() {
		this.store = store();
		this.otherStore = store();
		this.locks = template(this.store);
		this.otherLocks = template(this.otherStore);
	}

	@AfterEach
	void destroy() {
		this.redis.server().resume();
		this.templates.forEach(LockTemplate::destroy);
		this.stores.forEach(RedisLockStore::destroy);
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

	@Test
	void permitsNeverHaveMoreHoldersThanTheirNumberAcrossTwoInstances() throws Exception {
		Set<Long> fencingTokens = ConcurrentHashMap.newKeySet();
		PermitsChecker.Result seen = workload().permits("export:tenant-1", waiting(LockKind.permits(3)), 3,
				(lease) -> fencingTokens.add(lease.fencingToken()));
		assertThat(seen.violations()).as(seen.toString()).isZero();
		assertThat(seen.maxInside()).as("most holders inside at once, in %s", seen).isEqualTo(3);
		assertThat(fencingTokens).as("a fencing token of its own for every grant")
			.hasSize((int) seen.entries())
			.hasSize(12 * 15);
	}

	@Test
	void thePermitsCheckerCatchesMoreHoldersThanItExpects() throws Exception {
		// Negative control: six permits, taken by a checker that expects at most three
		PermitsChecker.Result seen = workload().permits("export:tenant-2", waiting(LockKind.permits(6)), 3);
		assertThat(seen.maxInside()).as("most holders inside at once, in %s", seen).isGreaterThan(3);
		assertThat(seen.violations()).as("entries over three, in %s", seen).isPositive();
	}

	@Test
	void twentySimultaneousCallsOfThreePermitsLetThreeInAndRefuseTheRest() throws Exception {
		LockOptions three = LockOptions.ttl(TTL).withKind(LockKind.permits(3));
		ExecutorService executor = Executors.newFixedThreadPool(20);
		try {
			CountDownLatch start = new CountDownLatch(1);
			CountDownLatch tried = new CountDownLatch(20);
			List<Future<LockAttempt>> attempts = new ArrayList<>();
			for (int i = 0; i < 20; i++) {
				LockTemplate instance = (i % 2 == 0) ? this.locks : this.otherLocks;
				attempts.add(executor.submit(() -> {
					start.await();
					LockAttempt attempt = instance.tryAcquire("report", three);
					tried.countDown();
					// Holders keep their places until every call has tried
					tried.await(30, TimeUnit.SECONDS);
					if (attempt.isAcquired()) {
						attempt.lease().release();
					}
					return attempt;
				}));
			}
			start.countDown();
			int acquired = 0;
			for (Future<LockAttempt> attempt : attempts) {
				LockAttempt done = attempt.get(60, TimeUnit.SECONDS);
				if (done.isAcquired()) {
					acquired++;
				}
				else {
					assertThat(done.holderRemainingTtl()).as("Retry-After of a refusal").isPositive();
				}
			}
			assertThat(acquired).isEqualTo(3);
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void readersShareAndAWriterExcludesReadersAndWritersAcrossTwoInstances() throws Exception {
		ReadersWriterChecker.Result seen = workload().readersAndWriter("doc-1", waiting(LockKind.READ),
				waiting(LockKind.WRITE), (thread) -> thread % 4 == 0);
		assertThat(seen.violations()).as("a writer inside with another holder, in %s", seen).isZero();
		assertThat(seen.maxReaders()).as("readers inside together, in %s", seen).isGreaterThan(1);
		assertThat(seen.writes()).as("writes, in %s", seen).isPositive();
	}

	@Test
	void theReadersAndWriterCheckerCatchesAWriterThatDoesNotExclude() throws Exception {
		// Negative control: the "writers" take read places
		ReadersWriterChecker.Result seen = workload().readersAndWriter("doc-2", waiting(LockKind.READ),
				waiting(LockKind.READ), (thread) -> thread % 4 == 0);
		assertThat(seen.violations()).as("a writer inside with another holder, in %s", seen).isPositive();
	}

	/** Twelve threads on the two instances, each taking the lock 15 times. */
	private SharedLockWorkload workload() {
		return new SharedLockWorkload(List.of(this.locks, this.otherLocks), 12, 15, Duration.ofMillis(3));
	}

	private static LockOptions waiting(LockKind kind) {
		return LockOptions.ttl(TTL).withKind(kind).withWaitTime(Duration.ofSeconds(60));
	}

	@Test
	void aWaitingWriterHoldsBackNewReadersUntilItsWaitEnds() {
		String key = key();
		assertThat(this.store.tryAcquireRead(key, "reader-1", TTL).isAcquired()).isTrue();
		AcquireReply writer = this.store.tryAcquireWrite(key, "writer", TTL, Duration.ofSeconds(30));
		assertThat(writer.isAcquired()).isFalse();
		assertThat(writer.holderRemainingTtl()).isPositive().isLessThanOrEqualTo(TTL);
		assertThat(this.otherStore.tryAcquireRead(key, "reader-2", TTL).isAcquired())
			.as("a new reader while a writer waits")
			.isFalse();
		assertThat(this.store.releaseShared(key, "reader-1")).isTrue();
		AcquireReply written = this.store.tryAcquireWrite(key, "writer", TTL, Duration.ofSeconds(30));
		assertThat(written.isAcquired()).isTrue();
		assertThat(this.otherStore.tryAcquireRead(key, "reader-2", TTL).isAcquired()).isFalse();
		assertThat(this.store.releaseShared(key, "writer")).isTrue();
		assertThat(this.otherStore.tryAcquireRead(key, "reader-2", TTL).isAcquired())
			.as("a reader once the writer has gone")
			.isTrue();
	}

	@Test
	void aWriterThatGivesUpOrDoesNotWaitHoldsNoReaderBack() {
		String key = key();
		assertThat(this.store.tryAcquireRead(key, "reader-1", TTL).isAcquired()).isTrue();
		assertThat(this.store.tryAcquireWrite(key, "impatient", TTL, Duration.ZERO).isAcquired()).isFalse();
		assertThat(this.store.tryAcquireRead(key, "reader-2", TTL).isAcquired()).as("no writer waits").isTrue();
		assertThat(this.store.tryAcquireWrite(key, "writer", TTL, Duration.ofSeconds(30)).isAcquired()).isFalse();
		assertThat(this.store.tryAcquireRead(key, "reader-3", TTL).isAcquired()).isFalse();
		assertThat(this.store.releaseShared(key, "writer")).as("the writer held no place").isFalse();
		assertThat(this.store.tryAcquireRead(key, "reader-3", TTL).isAcquired()).as("the writer gave up").isTrue();
		assertThat(this.store.tryAcquireWrite(key, "brief", TTL, Duration.ofMillis(200)).isAcquired()).isFalse();
		awaitAcquired(() -> this.store.tryAcquireRead(key, "reader-4", TTL), Duration.ofSeconds(5));
	}

	@Test
	void aWaitingWriterGetsInWhileReadersKeepArriving() throws Exception {
		String key = "doc-stream";
		LockOptions read = LockOptions.ttl(TTL).withKind(LockKind.READ).withWaitTime(Duration.ofSeconds(30));
		AtomicBoolean readersStop = new AtomicBoolean();
		AtomicInteger readersInside = new AtomicInteger();
		AtomicInteger readersWithTheWriter = new AtomicInteger();
		AtomicInteger readerGrants = new AtomicInteger();
		AtomicBoolean writerInside = new AtomicBoolean();
		ExecutorService executor = Executors.newFixedThreadPool(4);
		try {
			List<Future<?>> readers = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				LockTemplate instance = (i % 2 == 0) ? this.locks : this.otherLocks;
				readers.add(executor.submit(() -> {
					while (!readersStop.get()) {
						try (Lease lease = instance.acquire(key, read)) {
							readerGrants.incrementAndGet();
							readersInside.incrementAndGet();
							if (writerInside.get()) {
								readersWithTheWriter.incrementAndGet();
							}
							Thread.sleep(40);
							readersInside.decrementAndGet();
						}
					}
					return null;
				}));
			}
			// Readers overlap: the key is never free of them for long
			awaitTrue(() -> readerGrants.get() >= 20, Duration.ofSeconds(30));
			int grantsBefore = readerGrants.get();
			LockOptions write = LockOptions.ttl(TTL).withKind(LockKind.WRITE).withWaitTime(Duration.ofSeconds(30));
			try (Lease writer = this.otherLocks.acquire(key, write)) {
				writerInside.set(true);
				assertThat(readersInside.get()).as("readers inside with the writer").isZero();
				Thread.sleep(100);
				assertThat(readersInside.get()).as("readers inside with the writer").isZero();
				writerInside.set(false);
			}
			awaitTrue(() -> readerGrants.get() > grantsBefore + 4, Duration.ofSeconds(30));
			readersStop.set(true);
			for (Future<?> reader : readers) {
				reader.get(60, TimeUnit.SECONDS);
			}
			assertThat(readersWithTheWriter.get()).isZero();
		}
		finally {
			readersStop.set(true);
			executor.shutdownNow();
		}
	}

	@Test
	void anExpiredPlaceIsFree() {
		String key = key();
		assertThat(this.store.tryAcquirePermit(key, "short-1", Duration.ofMillis(300), 2).isAcquired()).isTrue();
		assertThat(this.store.tryAcquirePermit(key, "long", TTL, 2).isAcquired()).isTrue();
		AcquireReply refused = this.store.tryAcquirePermit(key, "third", TTL, 2);
		assertThat(refused.isAcquired()).isFalse();
		assertThat(refused.holderRemainingTtl()).as("the earliest place's remaining time")
			.isPositive()
			.isLessThanOrEqualTo(Duration.ofMillis(300));
		awaitAcquired(() -> this.store.tryAcquirePermit(key, "third", TTL, 2), Duration.ofSeconds(5));
		assertThat(this.store.releaseShared(key, "short-1")).as("an expired place is not released").isFalse();
		assertThat(this.store.extendShared(key, "short-1", TTL)).as("nor extended").isFalse();
		String doc = key();
		assertThat(this.store.tryAcquireWrite(doc, "writer", Duration.ofMillis(300), Duration.ZERO).isAcquired())
			.isTrue();
		assertThat(this.store.tryAcquireRead(doc, "reader", TTL).isAcquired()).isFalse();
		awaitAcquired(() -> this.store.tryAcquireRead(doc, "reader", TTL), Duration.ofSeconds(5));
	}

	@Test
	void aPlaceIsExtendedAndItsKeysNeverExpireBeforeTheLastPlace() {
		String key = key();
		assertThat(this.store.tryAcquirePermit(key, "one", Duration.ofMillis(500), 2).isAcquired()).isTrue();
		assertThat(this.store.tryAcquirePermit(key, "two", Duration.ofSeconds(2), 2).isAcquired()).isTrue();
		assertThat(this.store.sharedTimeToExpiry(key)).isGreaterThan(Duration.ofSeconds(1))
			.isLessThanOrEqualTo(Duration.ofSeconds(2));
		assertThat(this.store.extendShared(key, "one", Duration.ofSeconds(30))).isTrue();
		assertThat(this.store.sharedTimeToExpiry(key)).isGreaterThan(Duration.ofSeconds(20));
		assertThat(this.store.releaseShared(key, "one")).isTrue();
		assertThat(this.store.sharedTimeToExpiry(key)).as("the last place left")
			.isLessThanOrEqualTo(Duration.ofSeconds(2));
		String holders = "lock:{" + key.substring("lock:".length()) + "}:holders";
		long pttl = Long.parseLong(this.redis.server().command("PTTL", holders));
		assertThat(pttl).as("the holders outlive their last place, by no more than the longest place had")
			.isGreaterThanOrEqualTo(this.store.sharedTimeToExpiry(key).toMillis())
			.isLessThanOrEqualTo(30_000);
		assertThat(this.store.releaseShared(key, "two")).isTrue();
		assertThat(this.redis.server().command("EXISTS", holders)).isEqualTo("0");
		assertThat(this.store.sharedTimeToExpiry(key)).isZero();
	}

	@Test
	void aStaleTokenNeitherReleasesNorExtendsAnyPlace() {
		String key = key();
		assertThat(this.store.tryAcquirePermit(key, "holder-1", TTL, 2).isAcquired()).isTrue();
		assertThat(this.store.tryAcquirePermit(key, "holder-2", TTL, 2).isAcquired()).isTrue();
		Duration before = this.store.sharedTimeToExpiry(key);
		assertThat(this.otherStore.releaseShared(key, "stale")).isFalse();
		assertThat(this.otherStore.extendShared(key, "stale", Duration.ofMinutes(5))).isFalse();
		assertThat(this.otherStore.releaseShared(key, "holder")).as("a prefix of a holder's token").isFalse();
		assertThat(this.otherStore.releaseShared(key, "pholder-1")).as("a holder's member in the set").isFalse();
		assertThat(this.store.tryAcquirePermit(key, "third", TTL, 2).isAcquired()).as("both places still held")
			.isFalse();
		assertThat(this.store.sharedTimeToExpiry(key)).isLessThanOrEqualTo(before);
		String holders = "lock:{" + key.substring("lock:".length()) + "}:holders";
		assertThat(this.redis.server().command("ZCARD", holders)).isEqualTo("2");
	}

	@Test
	void fencingTokensStrictlyIncreaseOverEveryGrantOfTheKeyWhateverItsKind() {
		String key = key();
		List<Long> tokens = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			RedisLockStore instance = (i % 2 == 0) ? this.store : this.otherStore;
			AcquireReply permit = instance.tryAcquirePermit(key, "p" + i, TTL, 2);
			tokens.add(permit.fencingToken());
			assertThat(instance.releaseShared(key, "p" + i)).isTrue();
			AcquireReply read = instance.tryAcquireRead(key, "r" + i, TTL);
			tokens.add(read.fencingToken());
			assertThat(instance.releaseShared(key, "r" + i)).isTrue();
			AcquireReply write = instance.tryAcquireWrite(key, "w" + i, TTL, Duration.ZERO);
			tokens.add(write.fencingToken());
			assertThat(instance.releaseShared(key, "w" + i)).isTrue();
			tokens.add(instance.tryAcquireFenced(key, "m" + i, TTL).fencingToken());
			assertThat(instance.release(key, "m" + i)).isTrue();
		}
		assertThat(tokens).allSatisfy((token) -> assertThat(token).isPositive());
		for (int i = 1; i < tokens.size(); i++) {
			assertThat(tokens.get(i)).as("token %d of %s", i, tokens).isGreaterThan(tokens.get(i - 1));
		}
	}

	@Test
	void aReleaseIsAnnouncedToAWaiterOfAnotherInstanceThatWatchedTheKey() throws Exception {
		String key = key();
		assertThat(this.store.tryAcquirePermit(key, "holder", TTL, 1 + 1).isAcquired()).isTrue();
		assertThat(this.store.tryAcquirePermit(key, "holder-2", TTL, 2).isAcquired()).isTrue();
		CountDownLatch released = new CountDownLatch(1);
		try (ReleaseNotifyingLockStore.Subscription subscription = this.otherStore.subscribe(key,
				released::countDown)) {
			awaitTrue(() -> this.otherStore.getSubscriptionState() == RedisLockStore.SubscriptionState.CONNECTED,
					Duration.ofSeconds(5));
			// The waiter's refused attempt asks for the announcement
			assertThat(this.otherStore.tryAcquirePermit(key, "waiter", TTL, 2).isAcquired()).isFalse();
			assertThat(this.store.releaseShared(key, "holder")).isTrue();
			// Only a notification calls the listener: nothing polls here
			assertThat(released.await(5, TimeUnit.SECONDS)).as("release notification received").isTrue();
		}
	}

	@Test
	void aCrashedHoldersPermitComesBackWithinItsTtl() throws Exception {
		String key = "crashed-" + UUID.randomUUID();
		// Two seconds: the holder, a new JVM on a machine that may be busy, renews every
		// two thirds of a second, and a late renewal must not pass for a lost lock
		Duration ttl = Duration.ofSeconds(2);
		Process holder = startHolder(key, ttl, 2);
		try {
			String storeKey = "lock:" + key;
			assertThat(this.store.tryAcquirePermit(storeKey, "alive", TTL, 2).isAcquired()).isTrue();
			// Alive, the holder renews: its permit's expiry moves forward (the
			// earliest, since the other permit lives longer), and the renewed
			// permit keeps others out
			KilledHolderExpiry.awaitRenewals(() -> KilledHolderExpiry.Expiry.at(earliestExpiry(storeKey)), 2,
					ttl.multipliedBy(5));
			assertThat(this.store.tryAcquirePermit(storeKey, "competitor", ttl, 2).isAcquired()).isFalse();
			holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			long killedAt = System.nanoTime();
			// At most its time-to-live from its last renewal, which came before its
			// death;
			// 100 ms for a renewal the holder had sent, still in flight
			Duration blocked = BlockedTime.since(killedAt,
					() -> this.store.tryAcquirePermit(storeKey, "competitor", ttl, 2).isAcquired(),
					ttl.multipliedBy(5));
			assertThat(blocked).isLessThanOrEqualTo(ttl.plusMillis(100));
			assertThat(this.store.tryAcquirePermit(storeKey, "another", ttl, 2).isAcquired())
				.as("the live holder's permit was kept")
				.isFalse();
		}
		finally {
			holder.destroyForcibly();
		}
	}

	@Test
	void eachSharedOperationIsOneScriptCall() {
		String key = key();
		// Load the scripts and open the connection first
		this.store.tryAcquirePermit(key, "warm", TTL, 1 + 1);
		this.store.tryAcquireRead(key + "-rw", "warm", TTL);
		this.store.extendShared(key, "warm", TTL);
		this.store.releaseShared(key, "warm");
		this.store.releaseShared(key + "-rw", "warm");
		this.store.sharedTimeToExpiry(key);
		this.redis.server().command("CONFIG", "RESETSTAT");
		this.store.tryAcquirePermit(key, "one", TTL, 1 + 1);
		this.store.tryAcquirePermit(key, "two", TTL, 2);
		this.store.tryAcquirePermit(key, "refused", TTL, 2);
		this.store.tryAcquireRead(key + "-rw", "reader", TTL);
		this.store.tryAcquireWrite(key + "-rw", "writer", TTL, Duration.ofSeconds(5));
		this.store.extendShared(key, "one", TTL);
		this.store.releaseShared(key, "one");
		this.store.sharedTimeToExpiry(key);
		Map<String, Long> calls = commandCalls();
		calls.keySet().removeIf((command) -> command.startsWith("config"));
		assertThat(calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L)).as("script calls in %s", calls)
			.isEqualTo(8);
	}

	@Test
	void everySharedOperationFailsWithinTheTimeoutWhileRedisIsPaused() {
		String key = key();
		assertThat(this.store.tryAcquirePermit(key, "holder", TTL, 2).isAcquired()).isTrue();
		Duration timeout = Duration.ofMillis(500);
		this.store.setTimeout(timeout);
		this.redis.server().pause();
		assertFailsWithin(timeout, key, (k) -> this.store.tryAcquirePermit(k, "next", TTL, 2));
		assertFailsWithin(timeout, key, (k) -> this.store.tryAcquireRead(k, "reader", TTL));
		assertFailsWithin(timeout, key, (k) -> this.store.tryAcquireWrite(k, "writer", TTL, TTL));
		assertFailsWithin(timeout, key, (k) -> this.store.extendShared(k, "holder", TTL));
		assertFailsWithin(timeout, key, (k) -> this.store.releaseShared(k, "holder"));
		assertFailsWithin(timeout, key, (k) -> this.store.sharedTimeToExpiry(k));
		this.redis.server().resume();
		awaitTrue(() -> {
			try {
				return this.store.releaseShared(key, "holder");
			}
			catch (LockStoreException ex) {
				return false;
			}
		}, Duration.ofSeconds(10));
	}

	private static void assertFailsWithin(Duration timeout, String key, Consumer<String> operation) {
		long started = System.nanoTime();
		assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> operation.accept(key))
			.withMessageContaining(key);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).as("time to fail")
			.isLessThan(timeout.plusMillis(900));
	}

	private static void awaitAcquired(java.util.function.Supplier<AcquireReply> attempt, Duration within) {
		await().alias("acquired within " + within)
			.atMost(within)
			.pollInterval(Duration.ofMillis(10))
			.until(() -> attempt.get().isAcquired());
	}

	private static void awaitTrue(java.util.function.BooleanSupplier condition, Duration within) {
		await().alias("condition met within " + within)
			.atMost(within)
			.pollInterval(Duration.ofMillis(10))
			.until(condition::getAsBoolean);
	}

	/** The earliest expiry of a holder of the key, from the sorted set of its holders. */
	private long earliestExpiry(String storeKey) {
		String redisKey = new RedisKeys(RedisLockStore.DEFAULT_KEY_PREFIX).related(storeKey, "holders");
		String earliest = Objects
			.requireNonNull(this.redis.server().command("ZRANGE", redisKey, "0", "0", "WITHSCORES"));
		return (long) Double.parseDouble(earliest.split("\n")[1]);
	}

	private Process startHolder(String key, Duration ttl, int permits) throws Exception {
		String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process holder = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
				LockHolderProcess.class.getName(), this.redis.host(), Integer.toString(this.redis.port()),
				"lock:" + key, Long.toString(ttl.toMillis()), Integer.toString(permits))
			.redirectErrorStream(true)
			.start();
		BufferedReader output = new BufferedReader(
				new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
		StringBuilder printed = new StringBuilder();
		String line;
		do {
			line = output.readLine();
			printed.append(line).append('\n');
		}
		while (line != null && !line.equals(LockHolderProcess.ACQUIRED));
		assertThat(line).as("holder process output:%n%s", printed).isEqualTo(LockHolderProcess.ACQUIRED);
		CompletableFuture.runAsync(() -> output.lines().forEach((ignored) -> {
		}));
		return holder;
	}

	private Map<String, Long> commandCalls() {
		Map<String, Long> calls = new TreeMap<>();
		String stats = this.redis.server().command("INFO", "commandstats");
		assertThat(stats).isNotNull();
		for (String line : stats.split("\r\n")) {
			if (line.startsWith("cmdstat_")) {
				String command = line.substring("cmdstat_".length(), line.indexOf(':'));
				String count = line.substring(line.indexOf("calls=") + "calls=".length(), line.indexOf(','));
				calls.put(command, Long.parseLong(count));
			}
		}
		return calls;
	}

	private RedisLockStore store() {
		LettuceConnectionFactory factory = RedisLockOperationsContractTests.connectionFactory(this.redis.host(),
				this.redis.port());
		this.factories.add(factory);
		RedisLockStore created = new RedisLockStore(factory);
		this.stores.add(created);
		// A busy machine may take more than the timeout to open the first connection
		awaitTrue(() -> {
			try {
				return created.sharedTimeToExpiry(key()).isZero();
			}
			catch (LockStoreException ex) {
				return false;
			}
		}, Duration.ofSeconds(30));
		return created;
	}

	private LockTemplate template(RedisLockStore store) {
		LockTemplate template = new LockTemplate(store);
		this.templates.add(template);
		return template;
	}

	private static String key() {
		return "lock:shared-" + UUID.randomUUID();
	}

}
