package dev.lockstarter.interceptor;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveJob;
import dev.lockstarter.annotation.OnLeaseLost;
import dev.lockstarter.core.LeaseLostException;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.memory.InMemoryLockStore;
import org.springframework.aop.framework.ProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @ExclusiveJob(onLeaseLost = ...)} when renewal stops at the job's maximum hold
 * time, on the in-memory store.
 */
class ExclusiveJobLeaseLostTests {

	private final LockTemplate locks = new LockTemplate(new InMemoryLockStore());

	@AfterEach
	void shutDown() {
		this.locks.destroy();
	}

	@Test
	void cancelInterruptsTheJobAtItsMaximumHoldTimeAndClearsTheInterrupt() {
		Export export = proxy(new Export(), OnLeaseLost.REPORT);
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(export::cancelled)
			.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("export"));
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
		assertThat(this.locks.getHeldLocks()).isEmpty();
	}

	@Test
	void aConfiguredCancelAppliesToAJobThatDeclaresNone() {
		Export export = proxy(new Export(), OnLeaseLost.CANCEL);
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(export::undeclared);
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
	}

	@Test
	void reportLetsTheJobRunPastItsMaximumHoldTime() throws InterruptedException {
		Export export = proxy(new Export(), OnLeaseLost.REPORT);
		assertThat(export.undeclared()).isEqualTo("slept");
	}

	private Export proxy(Export target, OnLeaseLost configured) {
		ExclusiveJobAttributeSource attributeSource = new ExclusiveJobAttributeSource();
		ExclusiveJobInterceptor interceptor = new ExclusiveJobInterceptor(attributeSource, () -> this.locks,
				() -> LockOptions.ttl(Duration.ofSeconds(30)));
		interceptor.setOnLeaseLost(configured);
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new ExclusiveJobAdvisor(attributeSource, interceptor));
		return (Export) factory.getProxy();
	}

	static class Export {

		@ExclusiveJob(name = "export", holdAtLeast = "0s", ttl = "600ms", maxHold = "600ms",
				onLeaseLost = OnLeaseLost.CANCEL)
		public String cancelled() throws InterruptedException {
			Thread.sleep(30_000);
			return "slept";
		}

		@ExclusiveJob(name = "export", holdAtLeast = "0s", ttl = "600ms", maxHold = "600ms")
		public String undeclared() throws InterruptedException {
			Thread.sleep(2_000);
			return "slept";
		}

	}

}
