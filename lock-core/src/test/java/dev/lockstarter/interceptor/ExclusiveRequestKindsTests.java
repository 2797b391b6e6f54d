package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.LockMode;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.memory.InMemoryLockStore;
import org.springframework.aop.framework.ProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@code @ExclusiveRequest(permits = N)} and {@code mode = READ / WRITE}: two
 * application instances, each with its own {@link LockTemplate} and interceptor, on one
 * in-memory store, count the calls inside each method.
 */
class ExclusiveRequestKindsTests {

	private static final int CALLS = 20;

	private final InMemoryLockStore store = new InMemoryLockStore();

	private final List<LockTemplate> templates = new ArrayList<>();

	private final ExecutorService executor = Executors.newFixedThreadPool(CALLS);

	private final ExclusiveRequestAttributeSource attributes = new ExclusiveRequestAttributeSource();

	@AfterEach
	void shutDown() {
		this.executor.shutdownNow();
		this.templates.forEach(LockTemplate::destroy);
	}

	@Test
	void twentySimultaneousCallsOnTwoInstancesLetThreeInAndRejectTheRest() throws Exception {
		Exports shared = new Exports(CALLS);
		List<Exports> instances = List.of(instance(shared), instance(shared));
		List<Future<Boolean>> calls = new ArrayList<>();
		for (int i = 0; i < CALLS; i++) {
			Exports instance = instances.get(i % 2);
			calls.add(this.executor.submit(() -> {
				try {
					instance.export("tenant-1");
					return true;
				}
				catch (LockConflictException ex) {
					shared.decided.countDown();
					return false;
				}
			}));
		}
		int ran = 0;
		for (Future<Boolean> call : calls) {
			ran += call.get(30, TimeUnit.SECONDS) ? 1 : 0;
		}
		assertThat(ran).isEqualTo(3);
		assertThat(shared.mostInside).hasValue(3);
	}

	@Test
	void twentyCallsThatWaitAllRunWithAtMostThreeInside() throws Exception {
		Exports shared = new Exports(0);
		List<Exports> instances = List.of(instance(shared), instance(shared));
		List<Future<?>> calls = new ArrayList<>();
		for (int i = 0; i < CALLS; i++) {
			Exports instance = instances.get(i % 2);
			calls.add(this.executor.submit(() -> {
				instance.exportWaiting("tenant-1");
				return null;
			}));
		}
		for (Future<?> call : calls) {
			call.get(60, TimeUnit.SECONDS);
		}
		assertThat(shared.completed).hasValue(CALLS);
		assertThat(shared.mostInside.get()).isEqualTo(3);
	}

	@Test
	void readersRunTogetherAndAWriterWaitsForThem() throws Exception {
		Exports shared = new Exports(1);
		Exports instance = instance(shared);
		List<Future<?>> readers = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			// Each reader waits inside until all three are in: they must run together
			readers.add(this.executor.submit(() -> {
				instance.read("doc");
				return null;
			}));
		}
		assertThat(shared.allInside.await(10, TimeUnit.SECONDS)).isTrue();
		assertThatExceptionOfType(LockConflictException.class).isThrownBy(() -> instance.write("doc"));
		shared.decided.countDown();
		for (Future<?> reader : readers) {
			reader.get(10, TimeUnit.SECONDS);
		}
		instance.write("doc");
		assertThat(shared.mostInside).hasValue(3);
	}

	@Test
	void aDeclarationOfAKindIsParsedAndCheckedAtStartup() throws Exception {
		assertThat(attribute("export", String.class).kind()).isEqualTo(LockKind.permits(3));
		assertThat(attribute("read", String.class).kind()).isEqualTo(LockKind.READ);
		assertThat(attribute("write", String.class).kind()).isEqualTo(LockKind.WRITE);
		assertThat(attribute("export", String.class).options(LockOptions.ttl(Duration.ofSeconds(5))).getKind())
			.isEqualTo(LockKind.permits(3));
		assertThatExceptionOfType(InvalidLockDeclarationException.class)
			.isThrownBy(() -> attribute(Invalid.class, "none"))
			.withMessageContaining("Invalid.none(String)")
			.withMessageContaining("permits must be positive, was 0");
		assertThatExceptionOfType(InvalidLockDeclarationException.class)
			.isThrownBy(() -> attribute(Invalid.class, "readPermits"))
			.withMessageContaining("permits = 2 cannot be combined with mode = READ");
		assertThatExceptionOfType(InvalidLockDeclarationException.class)
			.isThrownBy(() -> attribute(Invalid.class, "eachKeyPermits"))
			.withMessageContaining("permits = 2 cannot be combined with eachKey = true");
		assertThatExceptionOfType(InvalidLockDeclarationException.class)
			.isThrownBy(() -> attribute(Invalid.class, "sharedWriter"))
			.withMessageContaining("mode = WRITE cannot be combined with eachKey = true or onConflict = SHARE_RESULT");
	}

	private ExclusiveRequestAttribute attribute(String method, Class<?>... parameters) throws Exception {
		ExclusiveRequestAttribute attribute = this.attributes.getAttribute(Exports.class.getMethod(method, parameters),
				Exports.class);
		assertThat(attribute).isNotNull();
		return attribute;
	}

	private void attribute(Class<?> type, String method) throws Exception {
		this.attributes.getAttribute(type.getMethod(method, String.class), type);
	}

	private Exports instance(Exports shared) {
		LockTemplate locks = new LockTemplate(this.store, "app:");
		this.templates.add(locks);
		ExclusiveRequestInterceptor interceptor = new ExclusiveRequestInterceptor(this.attributes, () -> locks,
				() -> LockOptions.ttl(Duration.ofSeconds(30)));
		ProxyFactory factory = new ProxyFactory(new Exports(shared));
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new ExclusiveRequestAdvisor(this.attributes, interceptor));
		return (Exports) factory.getProxy();
	}

	/**
	 * The annotated methods, counting the calls inside them across instances: each
	 * instance's target shares the counters of the first.
	 */
	static class Exports {

		final AtomicInteger inside;

		final AtomicInteger mostInside;

		final AtomicInteger completed;

		/**
		 * Counted down by each call that ran or was rejected; a call inside waits on it.
		 */
		final CountDownLatch decided;

		final CountDownLatch allInside;

		Exports(int calls) {
			this.inside = new AtomicInteger();
			this.mostInside = new AtomicInteger();
			this.completed = new AtomicInteger();
			this.decided = new CountDownLatch(calls);
			this.allInside = new CountDownLatch(3);
		}

		Exports(Exports shared) {
			this.inside = shared.inside;
			this.mostInside = shared.mostInside;
			this.completed = shared.completed;
			this.decided = shared.decided;
			this.allInside = shared.allInside;
		}

		@ExclusiveRequest(key = "#tenant", name = "export", permits = 3)
		public void export(String tenant) throws InterruptedException {
			enter();
			this.decided.countDown();
			this.decided.await(20, TimeUnit.SECONDS);
			leave();
		}

		@ExclusiveRequest(key = "#tenant", name = "export", permits = 3, waitTime = "50s")
		public void exportWaiting(String tenant) throws InterruptedException {
			enter();
			Thread.sleep(20);
			leave();
		}

		@ExclusiveRequest(key = "#doc", name = "doc", mode = LockMode.READ)
		public void read(String doc) throws InterruptedException {
			enter();
			this.allInside.countDown();
			this.decided.await(20, TimeUnit.SECONDS);
			leave();
		}

		@ExclusiveRequest(key = "#doc", name = "doc", mode = LockMode.WRITE)
		public void write(String doc) {
			enter();
			leave();
		}

		private void enter() {
			this.mostInside.accumulateAndGet(this.inside.incrementAndGet(), Math::max);
		}

		private void leave() {
			this.inside.decrementAndGet();
			this.completed.incrementAndGet();
		}

	}

	static class Invalid {

		@ExclusiveRequest(key = "#key", permits = 0)
		public void none(String key) {
		}

		@ExclusiveRequest(key = "#key", permits = 2, mode = LockMode.READ)
		public void readPermits(String key) {
		}

		@ExclusiveRequest(key = "#key", permits = 2, eachKey = true)
		public void eachKeyPermits(String key) {
		}

		@ExclusiveRequest(key = "#key", mode = LockMode.WRITE, onConflict = OnConflict.SHARE_RESULT)
		public void sharedWriter(String key) {
		}

	}

}
