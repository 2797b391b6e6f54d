package dev.lockstarter.idempotency;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import org.springframework.util.ReflectionUtils;
import org.springframework.web.context.request.async.DeferredResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link IdempotentRequestAttributeSource}.
 */
class IdempotentRequestAttributeSourceTests {

	private final IdempotentRequestAttributeSource source = new IdempotentRequestAttributeSource(Duration.ofHours(24));

	@Test
	void declarationWithoutAttributesUsesTheDefaultRetentionAndRequiresAKey() {
		assertThat(this.source.getAttribute(method("pay")))
			.isEqualTo(new IdempotentRequestAttribute(Duration.ofHours(24), true));
	}

	@Test
	void declaredRetentionAndOptionalKeyOverrideTheDefaults() {
		assertThat(this.source.getAttribute(method("refund")))
			.isEqualTo(new IdempotentRequestAttribute(Duration.ofMinutes(30), false));
	}

	@Test
	void declarationIsParsedOnceAndCachedPerMethod() {
		IdempotentRequestAttribute first = this.source.getAttribute(method("pay"));
		assertThat(first).isNotNull();
		assertThat(this.source.getAttribute(method("pay"))).isSameAs(first);
		assertThat(this.source.getAttribute(method("refund"))).isNotSameAs(first);
	}

	@Test
	void unannotatedMethodHasNoAttribute() {
		assertThat(this.source.getAttribute(method("plain"))).isNull();
		assertThat(this.source.getAttribute(method("plain"))).isNull();
	}

	@Test
	void asynchronousHandlersAreRejectedNamingTheMethod() {
		for (String name : new String[] { "callable", "deferred", "future" }) {
			assertThatIllegalStateException().isThrownBy(() -> this.source.getAttribute(method(name)))
				.withMessageContaining("Handlers." + name + "()")
				.withMessageContaining("asynchronous handlers are not supported");
		}
	}

	@Test
	void unparsableRetentionIsRejectedNamingTheMethodEveryTime() {
		for (int i = 0; i < 2; i++) {
			assertThatIllegalStateException().isThrownBy(() -> this.source.getAttribute(method("badRetention")))
				.withMessageContaining("Handlers.badRetention()")
				.withMessageContaining("invalid retention 'soon'");
		}
	}

	@Test
	void retentionThatIsNotPositiveIsRejectedNamingTheMethod() {
		assertThatIllegalStateException().isThrownBy(() -> this.source.getAttribute(method("zeroRetention")))
			.withMessageContaining("Handlers.zeroRetention()")
			.withMessageContaining("not positive: '0s'");
		assertThatIllegalStateException().isThrownBy(() -> this.source.getAttribute(method("negativeRetention")))
			.withMessageContaining("Handlers.negativeRetention()")
			.withMessageContaining("not positive: '-1h'");
	}

	private static Method method(String name) {
		Method method = ReflectionUtils.findMethod(Handlers.class, name);
		assertThat(method).isNotNull();
		return method;
	}

	static class Handlers {

		@IdempotentRequest
		String pay() {
			return "paid";
		}

		@IdempotentRequest(retention = "30m", required = false)
		String refund() {
			return "refunded";
		}

		String plain() {
			return "plain";
		}

		@IdempotentRequest
		Callable<String> callable() {
			return () -> "later";
		}

		@IdempotentRequest
		DeferredResult<String> deferred() {
			return new DeferredResult<>();
		}

		@IdempotentRequest
		CompletableFuture<String> future() {
			return CompletableFuture.completedFuture("later");
		}

		@IdempotentRequest(retention = "soon")
		String badRetention() {
			return "";
		}

		@IdempotentRequest(retention = "0s")
		String zeroRetention() {
			return "";
		}

		@IdempotentRequest(retention = "-1h")
		String negativeRetention() {
			return "";
		}

	}

}
