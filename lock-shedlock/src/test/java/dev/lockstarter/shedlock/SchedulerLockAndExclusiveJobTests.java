package dev.lockstarter.shedlock;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.annotation.ExclusiveJob;
import dev.lockstarter.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @SchedulerLock(name = "report")} on one bean and
 * {@code @ExclusiveJob(name = "report")} on another take the same lock, so they exclude
 * each other: while one runs, the other skips, in the same application instance or in
 * another one on the same Redis server.
 */
class SchedulerLockAndExclusiveJobTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Report report = new Report();

	private ApplicationInstance first;

	private ApplicationInstance second;

	@BeforeEach
	void startInstances() {
		Class<?>[] jobs = { ShedLockReport.class, ExclusiveJobReport.class };
		this.first = ApplicationInstance.start("first", redis, LockOperationsLockProvider::new, jobs, this.report);
		this.second = ApplicationInstance.start("second", redis, LockOperationsLockProvider::new, jobs, this.report);
	}

	@AfterEach
	void closeInstances() {
		this.report.releaseHeldRun();
		this.first.close();
		this.second.close();
	}

	@Test
	void exclusiveJobSkipsWhileSchedulerLockRunsOnAnotherInstance() throws Exception {
		CompletableFuture<Void> holder = this.report.holdWhileRunning(this.first.getBean(ShedLockReport.class)::send);
		this.second.getBean(ExclusiveJobReport.class).send();
		assertThat(this.report.runs()).as("runs while @SchedulerLock holds the lock").containsExactly("shedlock");
		this.report.release(holder);
		this.second.getBean(ExclusiveJobReport.class).send();
		assertThat(this.report.runs()).as("runs after it returned").containsExactly("shedlock", "exclusive-job");
	}

	@Test
	void schedulerLockSkipsWhileExclusiveJobRunsOnAnotherInstance() throws Exception {
		CompletableFuture<Void> holder = this.report
			.holdWhileRunning(this.first.getBean(ExclusiveJobReport.class)::send);
		this.second.getBean(ShedLockReport.class).send();
		assertThat(this.report.runs()).as("runs while @ExclusiveJob holds the lock").containsExactly("exclusive-job");
		this.report.release(holder);
		this.second.getBean(ShedLockReport.class).send();
		assertThat(this.report.runs()).as("runs after it returned").containsExactly("exclusive-job", "shedlock");
	}

	@Test
	void exclusiveJobSkipsWhileSchedulerLockRunsInTheSameInstance() throws Exception {
		CompletableFuture<Void> holder = this.report.holdWhileRunning(this.first.getBean(ShedLockReport.class)::send);
		this.first.getBean(ExclusiveJobReport.class).send();
		assertThat(this.report.runs()).as("runs while @SchedulerLock holds the lock").containsExactly("shedlock");
		this.report.release(holder);
		this.first.getBean(ExclusiveJobReport.class).send();
		assertThat(this.report.runs()).as("runs after it returned").containsExactly("shedlock", "exclusive-job");
	}

	/**
	 * The report's work, shared by both jobs of both instances: records each run, and
	 * holds the run started by {@link #holdWhileRunning} until {@link #release}.
	 */
	static final class Report {

		private final List<String> runs = new CopyOnWriteArrayList<>();

		private final CountDownLatch entered = new CountDownLatch(1);

		private final CountDownLatch release = new CountDownLatch(1);

		private volatile boolean holdNext;

		void run(String by) throws InterruptedException {
			this.runs.add(by);
			if (this.holdNext) {
				this.holdNext = false;
				this.entered.countDown();
				assertThat(this.release.await(30, TimeUnit.SECONDS)).as("released").isTrue();
			}
		}

		/**
		 * Call {@code job} in another thread and return once its run has started.
		 */
		CompletableFuture<Void> holdWhileRunning(Job job) throws InterruptedException {
			this.holdNext = true;
			CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
				try {
					job.send();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}, (task) -> new Thread(task, "held-report").start());
			assertThat(this.entered.await(30, TimeUnit.SECONDS)).as("held run started").isTrue();
			return holder;
		}

		/**
		 * Let the held run return and wait until it did.
		 */
		void release(CompletableFuture<Void> holder) throws Exception {
			releaseHeldRun();
			holder.get(30, TimeUnit.SECONDS);
		}

		void releaseHeldRun() {
			this.release.countDown();
		}

		List<String> runs() {
			return List.copyOf(this.runs);
		}

	}

	@FunctionalInterface
	interface Job {

		void send() throws InterruptedException;

	}

	static class ShedLockReport {

		private final Report report;

		ShedLockReport(Report report) {
			this.report = report;
		}

		@SchedulerLock(name = "report", lockAtMostFor = "30s", lockAtLeastFor = "0s")
		public void send() throws InterruptedException {
			this.report.run("shedlock");
		}

	}

	static class ExclusiveJobReport {

		private final Report report;

		ExclusiveJobReport(Report report) {
			this.report = report;
		}

		@ExclusiveJob(name = "report", holdAtLeast = "0s")
		public void send() throws InterruptedException {
			this.report.run("exclusive-job");
		}

	}

}
