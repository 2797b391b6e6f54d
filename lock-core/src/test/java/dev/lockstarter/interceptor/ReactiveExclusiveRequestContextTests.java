package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.result.JacksonResultCodec;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ReactiveExclusiveRequestContext}: what an annotated reactive method's
 * publisher reads as its lease and fencing token, with a {@link LockTemplate} on the
 * in-memory store, whose fencing tokens strictly increase per key.
 */
class ReactiveExclusiveRequestContextTests {

	private static final Duration BLOCK = Duration.ofSeconds(10);

	private final InterceptedLocks intercepted = new InterceptedLocks();

	private final Ledger ledger = this.intercepted.proxy(new Ledger());

	@AfterEach
	void shutDown() {
		this.intercepted.locks.destroy();
	}

	@Test
	void aMonoReadsTheFencingTokenOfItsOwnLease() {
		Entry first = this.ledger.credit("A").block(BLOCK);
		Entry second = this.ledger.credit("A").block(BLOCK);
		assertThat(first).isNotNull();
		assertThat(second).isNotNull();
		assertThat(first.key()).isEqualTo("ledger:A");
		assertThat(first.fence()).isPositive();
		assertThat(first.fence()).as("the token of the method's own lease").isEqualTo(first.leaseFence());
		assertThat(second.fence()).as("a later holder's token").isGreaterThan(first.fence());
	}

	@Test
	void everyElementOfAFluxSeesTheSameLease() {
		List<Long> fences = this.ledger.statements("B", 3).collectList().block(BLOCK);
		assertThat(fences).hasSize(3).doesNotContain(0L);
		assertThat(fences).containsOnly(fences.get(0));
	}

	@Test
	void aNestedMethodSeesItsOwnLeaseAndTheOuterOneItsOwnAgainAfterward() {
		List<String> seen = this.ledger.transferVia("C", "D").collectList().block(BLOCK);
		assertThat(seen).containsExactly("inner ledger:D", "outer ledger:C");
	}

	@Test
	void aSharedResultsFirstCallerReadsItsFencingToken() {
		this.intercepted.interceptor.setResultCodec(() -> new JacksonResultCodec(JsonMapper.builder().build()));
		assertThat(this.ledger.shared("E").block(BLOCK)).isPositive();
	}

	@Test
	void aMethodOnSeveralKeysHasNoSingleTokenButALeaseWithOneTokenPerKey() {
		Lease lease = this.ledger.both("F", "G").block(BLOCK);
		assertThat(lease).isNotNull();
		assertThat(lease.keys()).containsExactly("ledger:F", "ledger:G");
		assertThat(lease.fencingToken("ledger:F")).isPositive();
		assertThat(this.ledger.tokenOfBoth("F", "G").blockOptional(BLOCK)).isEmpty();
	}

	@Test
	void aPublisherOtherThanTheMethodsSeesNoLease() {
		assertThat(ReactiveExclusiveRequestContext.currentLease().blockOptional(BLOCK)).isEmpty();
		assertThat(ReactiveExclusiveRequestContext.currentFencingToken().blockOptional(BLOCK)).isEmpty();
		assertThat(this.ledger.credit("H")
			.then(ReactiveExclusiveRequestContext.currentFencingToken())
			.blockOptional(BLOCK)).as("read after the method's publisher, by its subscriber").isEmpty();
	}

	@Test
	void aMethodRunWithoutALockSeesNoLease() {
		this.intercepted.interceptor.setStoreFailurePolicy(StoreFailurePolicy.FAIL_OPEN);
		this.intercepted.store.failing = true;
		assertThat(this.ledger.tokenOrZero("I").block(BLOCK)).isZero();
	}

	record Entry(String key, long fence, long leaseFence) {
	}

	class Ledger {

		@ExclusiveRequest(name = "ledger", key = "#account")
		public Mono<Entry> credit(String account) {
			return ReactiveExclusiveRequestContext.currentLease()
				.zipWith(ReactiveExclusiveRequestContext.currentFencingToken())
				.map((found) -> new Entry(found.getT1().key(), found.getT2(), found.getT1().fencingToken()));
		}

		@ExclusiveRequest(name = "ledger", key = "#account")
		public Flux<Long> statements(String account, int count) {
			return Flux.range(0, count).concatMap((page) -> ReactiveExclusiveRequestContext.currentFencingToken());
		}

		@ExclusiveRequest(name = "ledger", key = "#from")
		public Flux<String> transferVia(String from, String via) {
			Ledger self = ReactiveExclusiveRequestContextTests.this.ledger;
			return self.keyOf(via)
				.map((key) -> "inner " + key)
				.concatWith(ReactiveExclusiveRequestContext.currentLease().map((lease) -> "outer " + lease.key()));
		}

		@ExclusiveRequest(name = "ledger", key = "#account")
		public Mono<String> keyOf(String account) {
			return ReactiveExclusiveRequestContext.currentLease().map(Lease::key);
		}

		@ExclusiveRequest(name = "ledger", key = "#account", onConflict = OnConflict.SHARE_RESULT)
		public Mono<Long> shared(String account) {
			return ReactiveExclusiveRequestContext.currentFencingToken();
		}

		@ExclusiveRequest(name = "ledger", key = { "#first", "#second" }, eachKey = true)
		public Mono<Lease> both(String first, String second) {
			return ReactiveExclusiveRequestContext.currentLease();
		}

		@ExclusiveRequest(name = "ledger", key = { "#first", "#second" }, eachKey = true)
		public Mono<Long> tokenOfBoth(String first, String second) {
			return ReactiveExclusiveRequestContext.currentFencingToken();
		}

		@ExclusiveRequest(name = "ledger", key = "#account")
		public Mono<Long> tokenOrZero(String account) {
			return ReactiveExclusiveRequestContext.currentFencingToken().defaultIfEmpty(0L);
		}

	}

}
