package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.core.ReactiveLockTemplate;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.contract.ReactiveLockOperationsContractTests;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link ReactiveLockOperationsContractTests} on the {@link RedisLockStore}'s reactive
 * operations, against a real Redis server (the store's default timeout leaves room for
 * the first connection on a busy machine), plus its bounds: a paused Redis fails each
 * reactive operation within {@code lock.redis.timeout}, as a {@link LockStoreException}.
 */
class RedisReactiveLockOperationsContractTests extends ReactiveLockOperationsContractTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void createConnectionFactory() {
		connectionFactory = RedisLockOperationsContractTests.connectionFactory(redis.host(), redis.port());
	}

	@AfterAll
	static void destroyConnectionFactory() {
		connectionFactory.destroy();
	}

	@AfterEach
	void resumeRedis() {
		redis.server().resume();
	}

	@Override
	protected LockStore createStore() {
		return new RedisLockStore(connectionFactory);
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

	@Override
	protected void destroyStore(LockStore store) {
		((RedisLockStore) store).destroy();
	}

	@Test
	void reactiveOperationsFailWithinTheTimeoutWhileRedisIsPaused() {
		RedisLockStore store = new RedisLockStore(connectionFactory);
		store.setTimeout(Duration.ofMillis(500));
		LockTemplate template = new LockTemplate(store);
		try {
			String key = "paused-" + UUID.randomUUID();
			AcquireReply taken = store.tryAcquireReactive(key, "one", Duration.ofSeconds(30)).block();
			assertThat(taken.isAcquired()).isTrue();
			redis.server().pause();
			assertFailsWithinTheTimeout(() -> store.tryAcquireReactive(key, "two", Duration.ofSeconds(30)).block());
			assertFailsWithinTheTimeout(() -> store.releaseReactive(key, "one").block());
			assertFailsWithinTheTimeout(() -> store.extendReactive(key, "one", Duration.ofSeconds(30)).block());
			assertFailsWithinTheTimeout(() -> new ReactiveLockTemplate(template)
				.tryAcquire(uniqueKey("paused"), LockOptions.ttl(Duration.ofSeconds(30)))
				.block());
			redis.server().resume();
			// The commands that timed out may still run now: the store answers again
			assertThat(store.extendReactive(key, "nobody", Duration.ofSeconds(1)).block(Duration.ofSeconds(5)))
				.isFalse();
		}
		finally {
			redis.server().resume();
			template.destroy();
			store.destroy();
		}
	}

	@Test
	void aReactiveCallSchedulesNoTimerOnAReactorSchedulerBeforeItsCommandIsSent() throws Exception {
		RedisLockStore store = new RedisLockStore(connectionFactory);
		Thread caller = Thread.currentThread();
		AtomicInteger scheduledByCaller = new AtomicInteger();
		String hook = "reactive-call-timers";
		Schedulers.onScheduleHook(hook, (task) -> {
			if (Thread.currentThread() == caller) {
				scheduledByCaller.incrementAndGet();
			}
			return task;
		});
		try {
			String key = uniqueKey("timers");
			Duration ttl = Duration.ofSeconds(30);
			// Opens the shared connection, if no call did yet
			assertThat(store.extendReactive(key, "nobody", ttl).block(Duration.ofSeconds(5))).isFalse();
			AcquireReply taken = subscribedWhileRedisIsPaused(store.tryAcquireReactive(key, "one", ttl),
					scheduledByCaller);
			assertThat(taken.isAcquired()).isTrue();
			assertThat(subscribedWhileRedisIsPaused(store.extendReactive(key, "one", ttl), scheduledByCaller)).isTrue();
			assertThat(subscribedWhileRedisIsPaused(store.releaseReactive(key, "one"), scheduledByCaller)).isTrue();
		}
		finally {
			Schedulers.resetOnScheduleHook(hook);
			redis.server().resume();
			store.destroy();
		}
	}

	/**
	 * Subscribe to {@code call} on this thread while Redis is paused, so that no reply
	 * can come back during the subscription: every task this thread schedules in it is
	 * scheduled before the command is sent, as a timeout counted by a Reactor timer would
	 * be. There must be none. Then resume Redis and return the call's answer.
	 */
	private static <T> T subscribedWhileRedisIsPaused(Mono<T> call, AtomicInteger scheduledByCaller) throws Exception {
		redis.server().pause();
		CompletableFuture<T> answer;
		try {
			scheduledByCaller.set(0);
			answer = call.toFuture();
			assertThat(scheduledByCaller).hasValue(0);
		}
		finally {
			redis.server().resume();
		}
		return answer.get(5, TimeUnit.SECONDS);
	}

	private static void assertFailsWithinTheTimeout(Runnable operation) {
		long started = System.nanoTime();
		assertThatExceptionOfType(LockStoreException.class).isThrownBy(operation::run)
			.withMessageContaining("lock.redis.timeout");
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(1500));
	}

}
