package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.MethodSelector;
import org.junit.platform.testkit.engine.EngineTestKit;
import reactor.core.publisher.Mono;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ReactiveLockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.test.EngineTestKitOnly;
import dev.lockstarter.test.contract.TemplateUnderTest.MultiKeyPath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

/**
 * Negative controls for the fencing cases of the contract suites: a store's fencing
 * tokens are checked against what its contract test class declares, and no fencing case
 * is skipped. A store whose tokens regressed to 0 while it declares fencing fails every
 * fencing case; the same store declaring none passes them; a store that issues tokens
 * without declaring them fails them too.
 */
class FencingDeclarationsTests {

	/** The fencing cases of each suite, by the suite they belong to. */
	private static final List<Case> FENCING_CASES = List.of(
			new Case(StoreSuite.class, "ownersOfOneKeyGetIncreasingFencingTokens", null),
			new Case(StoreSuite.class, "multiKeyStoreAcquiresEveryFreeKeyWithAFencingTokenEach", null),
			new Case(TemplateSuite.class, "fencingTokensStrictlyIncreaseAcrossOwners", null),
			new Case(TemplateSuite.class, "everyKeyOfAMultiKeyLeaseHasAnIncreasingFencingToken", MultiKeyPath.class),
			new Case(ReactiveSuite.class, "aReactiveLeaseComesWithItsFencingToken", null),
			new Case(ReactiveSuite.class, "reactiveStoreOperationsMatchTheBlockingOnes", null));

	@Test
	void storeThatDeclaresFencingButAnswersNoTokenFailsEveryFencingCase() {
		assertThat(outcomes(ZeroTokensDeclaringFencing.class))
			.allSatisfy((test, outcome) -> assertThat(outcome).as(test)
				.startsWith("FAILED: ")
				.contains("ZeroFencingLockStore, which declares fencing tokens"));
	}

	@Test
	void storeThatDeclaresNoFencingAndAnswersNoTokenPassesEveryFencingCase() {
		assertThat(outcomes(ZeroTokensDeclaringNone.class)).allSatisfy(FencingDeclarationsTests::succeeded);
	}

	@Test
	void storeThatIssuesTokensWithoutDeclaringThemFailsEveryFencingCase() {
		assertThat(outcomes(TokensDeclaringNone.class)).allSatisfy((test, outcome) -> assertThat(outcome).as(test)
			.startsWith("FAILED: ")
			.contains("InMemoryLockStore, which declares no fencing tokens"));
	}

	@Test
	void storeThatIssuesTheTokensItDeclaresPassesEveryFencingCase() {
		assertThat(outcomes(TokensDeclaringFencing.class)).allSatisfy(FencingDeclarationsTests::succeeded);
	}

	private static void succeeded(String test, String outcome) {
		assertThat(outcome).as(test).isEqualTo("SUCCESSFUL");
	}

	/**
	 * How each fencing case ended on the suites of {@code holder}, by test name: its
	 * status, with the first line of the message of a failed assertion or an abort.
	 */
	private static Map<String, String> outcomes(Class<?> holder) {
		Map<String, String> outcomes = new LinkedHashMap<>();
		for (Case fencingCase : FENCING_CASES) {
			Class<?> suite = fencingCase.suite(holder);
			List<TestExecutionResult> results = EngineTestKit.engine("junit-jupiter")
				.configurationParameter(EngineTestKitOnly.ENABLED, "true")
				.selectors(fencingCase.selector(suite))
				.execute()
				.testEvents()
				.finished()
				.stream()
				.map((event) -> event.getRequiredPayload(TestExecutionResult.class))
				.toList();
			assertThat(results).as("runs of %s", fencingCase.test()).hasSize(fencingCase.runs());
			for (int run = 0; run < results.size(); run++) {
				TestExecutionResult result = results.get(run);
				Throwable thrown = result.getThrowable().orElse(null);
				String outcome = result.getStatus().toString();
				if (thrown instanceof AssertionError || result.getStatus() == TestExecutionResult.Status.ABORTED) {
					outcome += ": " + String.valueOf(thrown.getMessage()).strip().lines().findFirst().orElse("");
				}
				else if (thrown != null) {
					outcome += ": " + thrown;
				}
				outcomes.put(suite.getSimpleName() + "." + fencingCase.test() + "[" + run + "]", outcome);
			}
		}
		return outcomes;
	}

	/**
	 * A fencing case: a test of one of the three suites, parameterized by the constants
	 * of an enum or not at all.
	 */
	private record Case(Class<?> suiteType, String test, @Nullable Class<? extends Enum<?>> parameter) {

		MethodSelector selector(Class<?> suite) {
			return (this.parameter != null) ? selectMethod(suite, this.test, this.parameter.getName())
					: selectMethod(suite, this.test);
		}

		int runs() {
			return (this.parameter != null) ? this.parameter.getEnumConstants().length : 1;
		}

		/** The nested class of {@code holder} that runs this case's suite. */
		Class<?> suite(Class<?> holder) {
			for (Class<?> nested : holder.getDeclaredClasses()) {
				if (this.suiteType.isAssignableFrom(nested)) {
					return nested;
				}
			}
			throw new IllegalStateException(holder.getSimpleName() + " runs no " + this.suiteType.getSimpleName());
		}

	}

	/** The suites, each run on the store of its holder class. */
	interface StoreSuite {

	}

	interface TemplateSuite {

	}

	interface ReactiveSuite {

	}

	/**
	 * The in-memory store's locks, with its multi-key and reactive operations, every
	 * acquisition answering {@link AcquireReply#NO_FENCING_TOKEN}: a store whose fencing
	 * regressed.
	 */
	static final class ZeroFencingLockStore implements MultiKeyLockStore, ReactiveLockStore {

		private final InMemoryLockStore locks = new InMemoryLockStore();

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			return withoutToken(this.locks.tryAcquire(key, token, ttl));
		}

		@Override
		public MultiKeyAcquireReply tryAcquireAll(List<String> keys, String token, Duration ttl) {
			MultiKeyAcquireReply reply = this.locks.tryAcquireAll(keys, token, ttl);
			return reply.isAcquired() ? MultiKeyAcquireReply.acquired(new long[keys.size()]) : reply;
		}

		@Override
		public Mono<AcquireReply> tryAcquireReactive(String key, String token, Duration ttl) {
			return this.locks.tryAcquireReactive(key, token, ttl).map(ZeroFencingLockStore::withoutToken);
		}

		@Override
		public boolean release(String key, String token) {
			return this.locks.release(key, token);
		}

		@Override
		public boolean[] releaseAll(List<String> keys, String token) {
			return this.locks.releaseAll(keys, token);
		}

		@Override
		public Mono<Boolean> releaseReactive(String key, String token) {
			return this.locks.releaseReactive(key, token);
		}

		@Override
		public boolean extend(String key, String token, Duration ttl) {
			return this.locks.extend(key, token, ttl);
		}

		@Override
		public Mono<Boolean> extendReactive(String key, String token, Duration ttl) {
			return this.locks.extendReactive(key, token, ttl);
		}

		@Override
		public Duration timeToExpiry(String key) {
			return this.locks.timeToExpiry(key);
		}

		private static AcquireReply withoutToken(AcquireReply reply) {
			return reply.isAcquired() ? AcquireReply.acquired() : reply;
		}

	}

	/** The store whose fencing regressed, declaring fencing. */
	static class ZeroTokensDeclaringFencing {

		@EngineTestKitOnly
		static class Store extends LockStoreContractTests implements StoreSuite {

			@Override
			protected LockStore createStore() {
				return new ZeroFencingLockStore();
			}

			@Override
			protected boolean issuesFencingTokens() {
				return true;
			}

		}

		@EngineTestKitOnly
		static class Templates extends LockOperationsContractTests implements TemplateSuite {

			@Override
			protected LockStore createStore() {
				return new ZeroFencingLockStore();
			}

			@Override
			protected boolean issuesFencingTokens() {
				return true;
			}

		}

		@EngineTestKitOnly
		static class Reactive extends ReactiveLockOperationsContractTests implements ReactiveSuite {

			@Override
			protected LockStore createStore() {
				return new ZeroFencingLockStore();
			}

			@Override
			protected boolean issuesFencingTokens() {
				return true;
			}

		}

	}

	/** The store whose fencing regressed, declaring none. */
	static class ZeroTokensDeclaringNone {

		@EngineTestKitOnly
		static class Store extends LockStoreContractTests implements StoreSuite {

			@Override
			protected LockStore createStore() {
				return new ZeroFencingLockStore();
			}

		}

		@EngineTestKitOnly
		static class Templates extends LockOperationsContractTests implements TemplateSuite {

			@Override
			protected LockStore createStore() {
				return new ZeroFencingLockStore();
			}

		}

		@EngineTestKitOnly
		static class Reactive extends ReactiveLockOperationsContractTests implements ReactiveSuite {

			@Override
			protected LockStore createStore() {
				return new ZeroFencingLockStore();
			}

		}

	}

	/** The in-memory store, which issues fencing tokens, declaring none. */
	static class TokensDeclaringNone {

		@EngineTestKitOnly
		static class Store extends LockStoreContractTests implements StoreSuite {

			@Override
			protected LockStore createStore() {
				return new InMemoryLockStore();
			}

		}

		@EngineTestKitOnly
		static class Templates extends LockOperationsContractTests implements TemplateSuite {

			@Override
			protected LockStore createStore() {
				return new InMemoryLockStore();
			}

		}

		@EngineTestKitOnly
		static class Reactive extends ReactiveLockOperationsContractTests implements ReactiveSuite {

			@Override
			protected LockStore createStore() {
				return new InMemoryLockStore();
			}

		}

	}

	/** The in-memory store, declaring its fencing tokens. */
	static class TokensDeclaringFencing {

		@EngineTestKitOnly
		static class Store extends LockStoreContractTests implements StoreSuite {

			@Override
			protected LockStore createStore() {
				return new InMemoryLockStore();
			}

			@Override
			protected boolean issuesFencingTokens() {
				return true;
			}

		}

		@EngineTestKitOnly
		static class Templates extends LockOperationsContractTests implements TemplateSuite {

			@Override
			protected LockStore createStore() {
				return new InMemoryLockStore();
			}

			@Override
			protected boolean issuesFencingTokens() {
				return true;
			}

		}

		@EngineTestKitOnly
		static class Reactive extends ReactiveLockOperationsContractTests implements ReactiveSuite {

			@Override
			protected LockStore createStore() {
				return new InMemoryLockStore();
			}

			@Override
			protected boolean issuesFencingTokens() {
				return true;
			}

		}

	}

}
