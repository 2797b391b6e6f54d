package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.InvalidLockKeyException;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.memory.InMemoryLockStore;
import org.springframework.aop.framework.ProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@code @ExclusiveRequest(eachKey = true)}: two application instances, each
 * with its own {@link LockTemplate} and interceptor, on one in-memory store, move money
 * between accounts kept in a shared map with a deliberately non-atomic read, pause and
 * write, so that a broken lock would lose money.
 */
class ExclusiveRequestEachKeyTests {

	private static final List<String> ACCOUNTS = List.of("A", "B", "C");

	private final InMemoryLockStore store = new InMemoryLockStore();

	private final List<LockTemplate> templates = new ArrayList<>();

	private final Bank bank = new Bank();

	private final ExecutorService executor = Executors.newFixedThreadPool(6);

	@AfterEach
	void shutDown() {
		this.executor.shutdownNow();
		this.templates.forEach(LockTemplate::destroy);
	}

	@Test
	void concurrentTransfersOverSharedAccountsNeverOverlapAndKeepEveryCent() throws Exception {
		Transfers first = instance(this.bank);
		Transfers second = instance(this.bank);
		List<String[]> pairs = List.of(new String[] { "A", "B" }, new String[] { "B", "A" }, new String[] { "A", "C" });
		List<Future<?>> runs = new ArrayList<>();
		for (Transfers instance : List.of(first, second)) {
			for (String[] pair : pairs) {
				runs.add(this.executor.submit(() -> {
					for (int i = 0; i < 40; i++) {
						instance.transfer(pair[0], pair[1], 1);
					}
					return null;
				}));
			}
		}
		for (Future<?> run : runs) {
			run.get(60, TimeUnit.SECONDS);
		}
		assertThat(this.bank.overlaps).as("two holders of one account at once").hasValue(0);
		assertThat(this.bank.transfers).hasValue(240);
		assertThat(this.bank.total()).isEqualTo(ACCOUNTS.size() * Bank.OPENING_BALANCE);
		assertThat(this.bank.balances).containsEntry("C", Bank.OPENING_BALANCE + 80);
	}

	@Test
	void callThatFindsOneOfItsKeysHeldIsRejectedWithTheLockNameAndHoldsNothing() throws Exception {
		Transfers transfers = instance(this.bank);
		LockTemplate other = template();
		try (Lease holder = other.acquire("account:B", Duration.ofSeconds(30))) {
			assertThatExceptionOfType(LockConflictException.class).isThrownBy(() -> transfers.transferNow("A", "B", 5))
				.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("account"))
				.satisfies((ex) -> assertThat(ex.getRetryAfter()).isPositive()
					.isLessThanOrEqualTo(Duration.ofSeconds(30)));
			assertThat(other.tryAcquire("account:A", Duration.ofSeconds(1)).isAcquired())
				.as("account A was not kept held")
				.isTrue();
		}
		assertThat(this.bank.transfers).hasValue(0);
	}

	@Test
	void eachKeyLockIsTheLockOfASingleKeyMethodWithTheSameName() throws Exception {
		Transfers transfers = instance(this.bank);
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		Future<?> audit = this.executor.submit(() -> transfers.audit("C", entered, finish));
		assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
		assertThatExceptionOfType(LockConflictException.class).isThrownBy(() -> transfers.transferNow("A", "C", 1));
		transfers.transferNow("A", "B", 1);
		finish.countDown();
		audit.get(10, TimeUnit.SECONDS);
		transfers.transferNow("A", "C", 1);
	}

	@Test
	void nullKeyValueRejectsTheCallAndTheMethodDoesNotRun() {
		Transfers transfers = instance(this.bank);
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> transfers.transfer("A", null, 1));
		assertThat(this.bank.transfers).hasValue(0);
	}

	@Test
	void nestedCallOnKeysTheOuterCallHoldsRunsUnderItsLease() {
		Transfers transfers = instance(this.bank);
		assertThat(transfers.transferAndAudit("A", "B")).isEqualTo("audited A");
	}

	@Test
	void nestedCallLocksOnlyTheKeysTheOuterCallDoesNotHold() throws Exception {
		Transfers transfers = instance(this.bank);
		LockTemplate other = template();
		assertThat(transfers.auditThenTransfer("A", "C", () -> {
			assertThat(other.tryAcquire("account:A", Duration.ofSeconds(1)).isAcquired()).isFalse();
			assertThat(other.tryAcquire("account:C", Duration.ofSeconds(1)).isAcquired()).isFalse();
		})).isEqualTo("audited A");
		assertThat(other.tryAcquire(List.of("account:A", "account:C"), Duration.ofSeconds(1)).isAcquired()).isTrue();
	}

	@Test
	void compositeKeyExcludesOnlyTheSamePairInTheSameOrder() throws Exception {
		Transfers transfers = instance(this.bank);
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		Future<?> composite = this.executor.submit(() -> transfers.compositeTransfer("A", "B", entered, finish));
		assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
		assertThatExceptionOfType(LockConflictException.class)
			.isThrownBy(() -> transfers.compositeTransfer("A", "B", new CountDownLatch(1), new CountDownLatch(0)));
		transfers.compositeTransfer("B", "A", new CountDownLatch(1), new CountDownLatch(0));
		finish.countDown();
		composite.get(10, TimeUnit.SECONDS);
	}

	private LockTemplate template() {
		LockTemplate template = new LockTemplate(this.store, "");
		this.templates.add(template);
		return template;
	}

	private Transfers instance(Bank bank) {
		LockTemplate locks = template();
		ExclusiveRequestAttributeSource attributeSource = new ExclusiveRequestAttributeSource();
		ExclusiveRequestInterceptor interceptor = new ExclusiveRequestInterceptor(attributeSource, () -> locks,
				() -> LockOptions.ttl(Duration.ofSeconds(30)));
		Transfers target = new Transfers(bank);
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new ExclusiveRequestAdvisor(attributeSource, interceptor));
		Transfers proxy = (Transfers) factory.getProxy();
		target.self = proxy;
		return proxy;
	}

	/**
	 * Accounts shared by the instances, as a database would be, with a count of holders
	 * per account that detects two at once.
	 */
	static final class Bank {

		static final long OPENING_BALANCE = 1_000;

		final Map<String, Long> balances = new ConcurrentHashMap<>();

		final Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();

		final AtomicInteger overlaps = new AtomicInteger();

		final AtomicLong transfers = new AtomicLong();

		Bank() {
			ACCOUNTS.forEach((account) -> {
				this.balances.put(account, OPENING_BALANCE);
				this.holders.put(account, new AtomicInteger());
			});
		}

		void enter(String... accounts) {
			for (String account : accounts) {
				if (this.holders.get(account).getAndIncrement() != 0) {
					this.overlaps.incrementAndGet();
				}
			}
		}

		void leave(String... accounts) {
			for (String account : accounts) {
				this.holders.get(account).decrementAndGet();
			}
		}

		/** Read, pause, write: a lost update whenever two holders overlap. */
		void add(String account, long amount) {
			long balance = this.balances.get(account);
			sleep(1);
			this.balances.put(account, balance + amount);
		}

		long total() {
			return this.balances.values().stream().mapToLong(Long::longValue).sum();
		}

	}

	static class Transfers {

		private final Bank bank;

		Transfers self;

		Transfers() {
			this(null);
		}

		Transfers(Bank bank) {
			this.bank = bank;
		}

		@ExclusiveRequest(name = "account", key = { "#from", "#to" }, eachKey = true, waitTime = "30s")
		public void transfer(String from, String to, long amount) {
			this.bank.enter(from, to);
			try {
				this.bank.add(from, -amount);
				this.bank.add(to, amount);
				this.bank.transfers.incrementAndGet();
			}
			finally {
				this.bank.leave(from, to);
			}
		}

		@ExclusiveRequest(name = "account", key = { "#from", "#to" }, eachKey = true)
		public void transferNow(String from, String to, long amount) {
			transfer(from, to, amount);
		}

		@ExclusiveRequest(name = "account", key = "#account")
		public String audit(String account, CountDownLatch entered, CountDownLatch finish) {
			entered.countDown();
			await(finish);
			return "audited " + account;
		}

		@ExclusiveRequest(name = "account", key = { "#from", "#to" }, eachKey = true)
		public String transferAndAudit(String from, String to) {
			return this.self.audit(from, new CountDownLatch(1), new CountDownLatch(0));
		}

		@ExclusiveRequest(name = "account", key = "#from")
		public String auditThenTransfer(String from, String to, Runnable inside) {
			this.self.transferChecking(from, to, inside);
			return "audited " + from;
		}

		@ExclusiveRequest(name = "account", key = { "#from", "#to" }, eachKey = true)
		public void transferChecking(String from, String to, Runnable inside) {
			inside.run();
		}

		@ExclusiveRequest(name = "pair", key = { "#from", "#to" })
		public void compositeTransfer(String from, String to, CountDownLatch entered, CountDownLatch finish) {
			entered.countDown();
			await(finish);
		}

	}

	private static void await(CountDownLatch latch) {
		try {
			if (!latch.await(10, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Timed out");
			}
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
			throw new IllegalStateException(ex);
		}
	}

}
