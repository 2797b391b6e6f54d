package dev.lockstarter.test.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link PermitsChecker}, including the negative control: a lock that lets one
 * holder too many in must be reported.
 */
class PermitsCheckerTests {

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@AfterEach
	void shutDown() {
		this.executor.shutdownNow();
	}

	@Test
	void holdersUpToThePermitsAreNoViolation() throws Exception {
		PermitsChecker checker = new PermitsChecker(3);
		holdAtOnce(checker, new Semaphore(3), 3);
		PermitsChecker.Result result = checker.result();
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.isWithinPermits()).isTrue();
		assertThat(result.maxInside()).isEqualTo(3);
		assertThat(result.entries()).isEqualTo(3);
	}

	@Test
	void aHolderBeyondThePermitsIsReported() throws Exception {
		PermitsChecker checker = new PermitsChecker(3);
		// A lock that grants one permit too many: four holders inside at once
		holdAtOnce(checker, new Semaphore(4), 4);
		PermitsChecker.Result result = checker.result();
		assertThat(result.violations()).as(result.toString()).isOne();
		assertThat(result.isWithinPermits()).isFalse();
		assertThat(result.maxInside()).isEqualTo(4);
		assertThat(result.firstViolations()).singleElement().asString().contains("4 holders inside export");
	}

	@Test
	void aCorrectSemaphoreUnderContentionIsNoViolationAndReachesItsPermits() throws Exception {
		PermitsChecker checker = new PermitsChecker(2);
		Semaphore semaphore = new Semaphore(2);
		List<Future<?>> runs = new ArrayList<>();
		for (int t = 0; t < 6; t++) {
			runs.add(this.executor.submit(() -> {
				for (int i = 0; i < 50; i++) {
					String key = (i % 2 == 0) ? "a" : "b";
					semaphore.acquire();
					try {
						checker.inside(key, () -> sleep(1));
					}
					finally {
						semaphore.release();
					}
				}
				return null;
			}));
		}
		for (Future<?> run : runs) {
			run.get(30, TimeUnit.SECONDS);
		}
		PermitsChecker.Result result = checker.result();
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.entries()).isEqualTo(300);
		assertThat(result.maxInside()).as(result.toString()).isEqualTo(2);
	}

	@Test
	void keysAreCountedApart() {
		PermitsChecker checker = new PermitsChecker(1);
		checker.enter("a");
		checker.enter("b");
		PermitsChecker.Result result = checker.result();
		assertThat(result.violations()).isZero();
		assertThat(result.maxInside()).isOne();
		checker.enter("a");
		assertThat(checker.result().violations()).isOne();
	}

	@Test
	void anExitWithoutAnEntryIsRefused() {
		PermitsChecker checker = new PermitsChecker(2);
		assertThatIllegalStateException().isThrownBy(() -> checker.exit("a")).withMessageContaining("a");
		checker.enter("a");
		checker.enter("a");
		checker.exit("a");
		checker.exit("a");
		assertThatIllegalStateException().isThrownBy(() -> checker.exit("a"));
		assertThat(checker.result().maxInside()).as("a refused exit leaves the count alone").isEqualTo(2);
		checker.enter("a");
		checker.enter("a");
		assertThat(checker.result().violations()).as("two holders of two permits after a refused exit").isZero();
	}

	@Test
	void permitsMustBePositive() {
		assertThatIllegalArgumentException().isThrownBy(() -> new PermitsChecker(0)).withMessageContaining("permits");
	}

	/** Each of {@code holders} threads takes the semaphore, enters and waits for all. */
	private void holdAtOnce(PermitsChecker checker, Semaphore semaphore, int holders) throws Exception {
		CyclicBarrier allInside = new CyclicBarrier(holders);
		List<Future<?>> runs = new ArrayList<>();
		for (int t = 0; t < holders; t++) {
			runs.add(this.executor.submit(() -> {
				if (!semaphore.tryAcquire()) {
					return null;
				}
				try {
					checker.enter("export");
					allInside.await(10, TimeUnit.SECONDS);
					checker.exit("export");
				}
				finally {
					semaphore.release();
				}
				return null;
			}));
		}
		for (Future<?> run : runs) {
			run.get(30, TimeUnit.SECONDS);
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
