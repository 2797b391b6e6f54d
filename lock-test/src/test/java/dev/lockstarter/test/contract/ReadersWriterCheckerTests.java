package dev.lockstarter.test.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link ReadersWriterChecker}, including the negative controls: a reader
 * beside a writer, a writer beside a reader and two writers at once must be reported.
 */
class ReadersWriterCheckerTests {

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@AfterEach
	void shutDown() {
		this.executor.shutdownNow();
	}

	@Test
	void readersTogetherAreNoViolation() {
		ReadersWriterChecker checker = new ReadersWriterChecker();
		checker.enterRead("doc");
		checker.enterRead("doc");
		checker.enterRead("doc");
		checker.exitRead("doc");
		checker.exitRead("doc");
		checker.exitRead("doc");
		checker.writing("doc", () -> {
		});
		ReadersWriterChecker.Result result = checker.result();
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.isExclusive()).isTrue();
		assertThat(result.maxReaders()).isEqualTo(3);
		assertThat(result).extracting(ReadersWriterChecker.Result::reads, ReadersWriterChecker.Result::writes)
			.containsExactly(3L, 1L);
	}

	@Test
	void aReaderBesideAWriterIsReported() throws Exception {
		ReadersWriterChecker checker = new ReadersWriterChecker();
		CountDownLatch writerInside = new CountDownLatch(1);
		CountDownLatch readerDone = new CountDownLatch(1);
		Future<?> writer = this.executor.submit(() -> checker.writing("doc", () -> {
			writerInside.countDown();
			await(readerDone);
		}));
		await(writerInside);
		checker.reading("doc", () -> {
		});
		readerDone.countDown();
		writer.get(10, TimeUnit.SECONDS);
		ReadersWriterChecker.Result result = checker.result();
		assertThat(result.violations()).as(result.toString()).isOne();
		assertThat(result.isExclusive()).isFalse();
		assertThat(result.firstViolations()).singleElement()
			.asString()
			.contains("a reader entered doc while a writer was inside");
	}

	@Test
	void aWriterBesideAReaderOrAnotherWriterIsReported() {
		ReadersWriterChecker checker = new ReadersWriterChecker();
		checker.enterRead("doc");
		checker.enterWrite("doc");
		checker.exitRead("doc");
		checker.enterWrite("doc");
		ReadersWriterChecker.Result result = checker.result();
		assertThat(result.violations()).as(result.toString()).isEqualTo(2);
		assertThat(result.firstViolations()).containsExactly(
				"a writer entered doc with 0 writers and 1 readers inside (on " + Thread.currentThread().getName()
						+ ")",
				"a writer entered doc with 1 writers and 0 readers inside (on " + Thread.currentThread().getName()
						+ ")");
	}

	@Test
	void keysAreCheckedApart() {
		ReadersWriterChecker checker = new ReadersWriterChecker();
		checker.enterWrite("a");
		checker.enterRead("b");
		checker.enterWrite("c");
		assertThat(checker.result().violations()).isZero();
	}

	@Test
	void anExitWithoutAnEntryIsRefused() {
		ReadersWriterChecker checker = new ReadersWriterChecker();
		assertThatIllegalStateException().isThrownBy(() -> checker.exitRead("doc"));
		assertThatIllegalStateException().isThrownBy(() -> checker.exitWrite("doc"));
	}

	@Test
	void aCorrectReadWriteLockUnderContentionIsNoViolationAndSharesReads() throws Exception {
		ReadWriteLock lock = new ReentrantReadWriteLock(true);
		ReadersWriterChecker checker = run(lock, lock);
		ReadersWriterChecker.Result result = checker.result();
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.reads() + result.writes()).isEqualTo(8 * 40);
		assertThat(result.maxReaders()).as(result.toString()).isGreaterThanOrEqualTo(2);
	}

	@Test
	void aLockWhoseReadersIgnoreTheWriterIsReportedUnderContention() throws Exception {
		ReadWriteLock writers = new ReentrantReadWriteLock(true);
		// The readers take a lock of their own, so they never meet the writer
		ReadersWriterChecker checker = run(writers, new ReentrantReadWriteLock(true));
		ReadersWriterChecker.Result result = checker.result();
		assertThat(result.violations()).as(result.toString()).isPositive();
	}

	/** Eight threads read (and every fourth round write) one key for 40 rounds. */
	private ReadersWriterChecker run(ReadWriteLock writeSide, ReadWriteLock readSide) throws Exception {
		ReadersWriterChecker checker = new ReadersWriterChecker();
		List<Future<?>> runs = new ArrayList<>();
		for (int t = 0; t < 8; t++) {
			int thread = t;
			runs.add(this.executor.submit(() -> {
				for (int i = 0; i < 40; i++) {
					if ((i + thread) % 4 == 0) {
						writeSide.writeLock().lock();
						try {
							checker.writing("doc", () -> sleep(1));
						}
						finally {
							writeSide.writeLock().unlock();
						}
					}
					else {
						readSide.readLock().lock();
						try {
							checker.reading("doc", () -> sleep(1));
						}
						finally {
							readSide.readLock().unlock();
						}
					}
				}
				return null;
			}));
		}
		for (Future<?> run : runs) {
			run.get(60, TimeUnit.SECONDS);
		}
		return checker;
	}

	private static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
