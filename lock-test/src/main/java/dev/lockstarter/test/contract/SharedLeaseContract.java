package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;

import static dev.lockstarter.test.contract.TemplateUnderTest.LONG_TTL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Permits and read/write locks taken through several {@link LockTemplate} instances on
 * one store, as several application instances take them: many threads never put more
 * holders inside a key than its permits ({@link PermitsChecker}), never a writer beside
 * anyone ({@link ReadersWriterChecker}), and a waiting writer is not starved by a stream
 * of overlapping readers. Each test also shows that its limit was reached, so that it
 * cannot pass on a lock that never let two holders in. Skipped unless the template
 * {@linkplain LockTemplate#supports supports} the kind.
 */
interface SharedLeaseContract extends TemplateContract {

	/** How long a holder stays inside, doing its work. */
	Duration WORK = Duration.ofMillis(2);

	@Test
	default void permitsNeverAdmitMoreHoldersThanTheirNumberAcrossInstances() throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		int permits = 3;
		LockKind kind = LockKind.permits(permits);
		List<LockTemplate> instances = fixture.instances(kind, 3);
		List<String> keys = List.of(fixture.uniqueKey("permits-a"), fixture.uniqueKey("permits-b"));
		LockOptions options = LockOptions.ttl(LONG_TTL).withKind(kind).withWaitTime(Duration.ofSeconds(30));
		PermitsChecker checker = new PermitsChecker(permits);
		SharedLockWorkload workload = new SharedLockWorkload(instances, 12, 15, WORK);
		workload.run((locks, thread) -> {
			String key = keys.get(ThreadLocalRandom.current().nextInt(keys.size()));
			SharedLockWorkload.holding(locks, key, options, () -> checker.inside(key, workload::hold));
		});
		PermitsChecker.Result result = checker.result();
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.entries()).as(result.toString()).isEqualTo(workload.entries());
		assertThat(result.maxInside()).as("most holders inside a key at once, in " + result).isEqualTo(permits);
	}

	@Test
	default void simultaneousCallsOnPermitsAdmitThatManyAndRefuseTheRest() throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		int permits = 3;
		LockKind kind = LockKind.permits(permits);
		List<LockTemplate> instances = fixture.instances(kind, 2);
		String key = fixture.uniqueKey("permits-simultaneous");
		LockOptions options = LockOptions.ttl(LONG_TTL).withKind(kind);
		PermitsChecker checker = new PermitsChecker(permits);
		int callers = 20;
		CountDownLatch go = new CountDownLatch(1);
		CountDownLatch attempted = new CountDownLatch(callers);
		List<Future<Boolean>> calls = new ArrayList<>();
		for (int c = 0; c < callers; c++) {
			LockTemplate locks = instances.get(c % instances.size());
			calls.add(fixture.executor().submit(() -> {
				go.await();
				LockAttempt attempt = locks.tryAcquire(key, options);
				if (!attempt.isAcquired()) {
					attempted.countDown();
					assertThat(attempt.holderRemainingTtl()).as("the earliest permit's remaining time-to-live")
						.isPositive();
					return false;
				}
				try (Lease lease = attempt.lease()) {
					// Inside before this caller counts as having tried, and held until
					// every caller has: all of them meet the holders, and every holder
					// is inside at once
					checker.enter(key);
					attempted.countDown();
					assertThat(attempted.await(30, TimeUnit.SECONDS)).isTrue();
					checker.exit(key);
				}
				return true;
			}));
		}
		go.countDown();
		int admitted = 0;
		for (Future<Boolean> call : calls) {
			admitted += call.get(60, TimeUnit.SECONDS) ? 1 : 0;
		}
		PermitsChecker.Result result = checker.result();
		assertThat(admitted).as("callers admitted of %d, in %s", callers, result).isEqualTo(permits);
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.maxInside()).as(result.toString()).isEqualTo(permits);
	}

	@Test
	default void readersShareAndAWriterExcludesEveryoneAcrossInstances() throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		List<LockTemplate> instances = fixture.instances(LockKind.WRITE, 3);
		String key = fixture.uniqueKey("read-write");
		LockOptions read = LockOptions.ttl(LONG_TTL).withKind(LockKind.READ).withWaitTime(Duration.ofSeconds(30));
		LockOptions write = read.withKind(LockKind.WRITE);
		ReadersWriterChecker checker = new ReadersWriterChecker();
		SharedLockWorkload workload = new SharedLockWorkload(instances, 10, 20, WORK);
		workload.run((locks, thread) -> {
			if (ThreadLocalRandom.current().nextInt(5) == 0) {
				SharedLockWorkload.holding(locks, key, write, () -> checker.writing(key, workload::hold));
			}
			else {
				SharedLockWorkload.holding(locks, key, read, () -> checker.reading(key, workload::hold));
			}
		});
		ReadersWriterChecker.Result result = checker.result();
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.reads() + result.writes()).as(result.toString()).isEqualTo(workload.entries());
		assertThat(result.writes()).as("writes in " + result).isPositive();
		assertThat(result.maxReaders()).as("most readers inside at once, in " + result).isGreaterThanOrEqualTo(2);
	}

	/**
	 * Readers take the key in relay: each stays inside until another reader has entered
	 * after it (or, if none can, for a while), so the key is never free of readers. A
	 * writer that holds back new readers while it waits gets in once the readers inside
	 * leave; a writer that does not is refused for as long as the stream lasts.
	 */
	@Test
	default void aWaitingWriterIsNotStarvedByAStreamOfOverlappingReaders() throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		List<LockTemplate> instances = fixture.instances(LockKind.WRITE, 3);
		String key = fixture.uniqueKey("starvation");
		LockOptions read = LockOptions.ttl(LONG_TTL).withKind(LockKind.READ);
		Duration longestStay = Duration.ofMillis(300);
		ReadersWriterChecker checker = new ReadersWriterChecker();
		AtomicLong entries = new AtomicLong();
		AtomicBoolean stop = new AtomicBoolean();
		List<Future<?>> readers = new ArrayList<>();
		for (int r = 0; r < 3; r++) {
			// The readers run on the other instances: the first one's recording sees the
			// writer alone
			LockTemplate locks = instances.get(1 + r % 2);
			readers.add(fixture.executor().submit(() -> {
				while (!stop.get()) {
					LockAttempt attempt = locks.tryAcquire(key, read);
					if (!attempt.isAcquired()) {
						Thread.sleep(1);
						continue;
					}
					try (Lease lease = attempt.lease()) {
						long entry = entries.incrementAndGet();
						checker.enterRead(key);
						long leaveBy = System.nanoTime() + longestStay.toNanos();
						while (entries.get() == entry && System.nanoTime() - leaveBy < 0 && !stop.get()) {
							Thread.sleep(1);
						}
						checker.exitRead(key);
					}
				}
				return null;
			}));
		}
		try {
			awaitAtLeast(entries, 5, "reader entries before the writer came");
			long readersBefore = entries.get();
			int refusals = fixture.recording().refusals();
			Duration wait = Duration.ofSeconds(5);
			LockAttempt writer = fixture.locks()
				.tryAcquire(key, LockOptions.ttl(LONG_TTL).withKind(LockKind.WRITE).withWaitTime(wait));
			assertThat(fixture.recording().refusals()).as("refusals of the writer, which came among readers")
				.isGreaterThan(refusals);
			assertThat(writer.isAcquired())
				.as("a writer waiting %s among a stream of overlapping readers (%d entries before it came, %d by now)",
						wait, readersBefore, entries.get())
				.isTrue();
			try (Lease lease = writer.lease()) {
				checker.writing(key, SharedLeaseContract::work);
			}
		}
		finally {
			stop.set(true);
			awaitAll(readers);
		}
		ReadersWriterChecker.Result result = checker.result();
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.maxReaders()).as("readers inside at once, in " + result).isGreaterThanOrEqualTo(2);
	}

	private static void work() {
		try {
			Thread.sleep(WORK.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while holding a lock", ex);
		}
	}

	private static void awaitAll(List<? extends Future<?>> runs) throws Exception {
		for (Future<?> run : runs) {
			run.get(60, TimeUnit.SECONDS);
		}
	}

	private static void awaitAtLeast(AtomicLong counter, long count, String what) throws InterruptedException {
		await("at least " + count + " " + what).atMost(Duration.ofSeconds(20))
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(5))
			.untilAsserted(() -> assertThat(counter.get()).as(what).isGreaterThanOrEqualTo(count));
	}

}
