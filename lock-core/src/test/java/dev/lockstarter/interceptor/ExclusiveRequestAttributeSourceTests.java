package dev.lockstarter.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.LockOptions;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link ExclusiveRequestAttributeSource}.
 */
class ExclusiveRequestAttributeSourceTests {

	private static final LockOptions DEFAULTS = LockOptions.ttl(Duration.ofSeconds(30));

	private final ExclusiveRequestAttributeSource source = new ExclusiveRequestAttributeSource();

	@Test
	void annotationIsParsedIntoNameKeyAndOptions() {
		ExclusiveRequestAttribute attribute = this.source.getAttribute(method(Valid.class, "register", String.class),
				Valid.class);
		assertThat(attribute).isNotNull();
		assertThat(attribute.name()).isEqualTo("users");
		assertThat(attribute.keyResolver().resolve(new Object[] { "alice" })).isEqualTo("users:alice");
		LockOptions options = attribute.options(DEFAULTS);
		assertThat(options.getTtl()).isEqualTo(Duration.ofSeconds(5));
		assertThat(options.getWaitTime()).isEqualTo(Duration.ofMillis(500));
	}

	@Test
	void nameDefaultsToTheDeclaringClassAndMethod() {
		ExclusiveRequestAttribute attribute = this.source.getAttribute(method(Valid.class, "unnamed"), Valid.class);
		assertThat(attribute).isNotNull();
		assertThat(attribute.name()).isEqualTo("Valid.unnamed");
		assertThat(attribute.options(DEFAULTS)).isEqualTo(DEFAULTS.withName("Valid.unnamed"));
	}

	@Test
	void metadataIsParsedOnceAndCachedPerMethod() {
		AtomicInteger resolutions = new AtomicInteger();
		this.source.setEmbeddedValueResolver((value) -> {
			resolutions.incrementAndGet();
			return value.equals("${users.ttl}") ? "7s" : value;
		});
		Method register = method(Valid.class, "placeholder", String.class);
		ExclusiveRequestAttribute first = this.source.getAttribute(register, Valid.class);
		int resolutionsOfFirstParse = resolutions.get();
		ExclusiveRequestAttribute second = this.source.getAttribute(register, Valid.class);
		assertThat(first).isNotNull().isSameAs(second);
		assertThat(resolutionsOfFirstParse).isPositive();
		assertThat(resolutions).hasValue(resolutionsOfFirstParse);
		assertThat(first.options(DEFAULTS).getTtl()).isEqualTo(Duration.ofSeconds(7));
	}

	@Test
	void unannotatedMethodHasNoAttributeAndIsCachedAsSuch() {
		Method plain = method(Valid.class, "plain");
		assertThat(this.source.getAttribute(plain, Valid.class)).isNull();
		assertThat(this.source.getAttribute(plain, Valid.class)).isNull();
	}

	@Test
	void invalidDeclarationFailsEveryTimeItIsLookedUp() {
		Method method = method(Invalid.class, "unknownParameter", String.class);
		assertThatExceptionOfType(InvalidExclusiveRequestException.class)
			.isThrownBy(() -> this.source.getAttribute(method, Invalid.class));
		assertThatExceptionOfType(InvalidExclusiveRequestException.class)
			.isThrownBy(() -> this.source.getAttribute(method, Invalid.class));
	}

	@Test
	void unparsableKeyExpressionIsRejectedNamingTheMethod() {
		assertInvalid("unparsableExpression", "cannot be parsed", String.class);
	}

	@Test
	void keyExpressionOnAnUnknownParameterIsRejectedNamingTheMethod() {
		assertInvalid("unknownParameter", "'#orderNumber'", String.class);
	}

	@Test
	void negativeTtlIsRejectedNamingTheMethod() {
		assertInvalid("negativeTtl", "ttl must be positive, was '-1s'");
	}

	@Test
	void ttlBelowOneMillisecondIsRejectedNamingTheMethod() {
		assertInvalid("subMillisecondTtl",
				"ttl must be at least 1ms, the shortest time-to-live that a lock store keeps, " + "was '500us'");
	}

	@Test
	void negativeWaitTimeIsRejectedNamingTheMethod() {
		assertInvalid("negativeWaitTime", "waitTime must be zero or positive, was '-5s'");
	}

	@Test
	void negativeHoldAtLeastIsRejectedNamingTheMethod() {
		assertInvalid("negativeHoldAtLeast", "holdAtLeast must be zero or positive");
	}

	@Test
	void unparsableDurationIsRejectedNamingTheMethod() {
		assertInvalid("unparsableTtl", "ttl 'soon' is not a duration");
	}

	@Test
	void finalMethodIsRejectedBecauseAProxyCannotInterceptIt() {
		assertInvalid("finalMethod", "a final method cannot be intercepted");
	}

	@Test
	void eachKeyIsParsed() {
		ExclusiveRequestAttribute attribute = this.source
			.getAttribute(method(Valid.class, "transfer", String.class, String.class), Valid.class);
		assertThat(attribute).isNotNull();
		assertThat(attribute.eachKey()).isTrue();
		assertThat(attribute.keyResolver().resolveEach(new Object[] { "A", "B" })).containsExactly("account:A",
				"account:B");
		assertThat(this.source.getAttribute(method(Valid.class, "register", String.class), Valid.class).eachKey())
			.isFalse();
	}

	@Test
	void eachKeyWithoutKeyExpressionsIsRejected() {
		assertInvalid("eachKeyWithoutKeys", "eachKey = true needs key expressions");
	}

	@Test
	void eachKeyWithSharedResultsIsRejected() {
		assertInvalid("eachKeyWithSharedResult", "eachKey = true cannot be combined with onConflict = SHARE_RESULT",
				String.class);
	}

	private void assertInvalid(String methodName, String reason, Class<?>... parameterTypes) {
		Method method = method(Invalid.class, methodName, parameterTypes);
		assertThatExceptionOfType(InvalidExclusiveRequestException.class)
			.isThrownBy(() -> this.source.getAttribute(method, Invalid.class))
			.withMessageStartingWith("Invalid @ExclusiveRequest on ")
			.withMessageContaining("ExclusiveRequestAttributeSourceTests$Invalid." + methodName + "(")
			.withMessageContaining(reason)
			.satisfies((ex) -> assertThat(ex.getMethod()).endsWith("Invalid." + methodName + "("
					+ ((parameterTypes.length > 0) ? parameterTypes[0].getSimpleName() : "") + ")"));
	}

	private static Method method(Class<?> type, String name, Class<?>... parameterTypes) {
		Method method = ReflectionUtils.findMethod(type, name, parameterTypes);
		assertThat(method).isNotNull();
		return method;
	}

	static class Valid {

		@ExclusiveRequest(name = "users", key = "#userName", ttl = "5s", waitTime = "500ms")
		public void register(String userName) {
		}

		@ExclusiveRequest
		public void unnamed() {
		}

		@ExclusiveRequest(name = "users", key = "#userName", ttl = "${users.ttl}")
		public void placeholder(String userName) {
		}

		public void plain() {
		}

		@ExclusiveRequest(name = "account", key = { "#from", "#to" }, eachKey = true)
		public void transfer(String from, String to) {
		}

	}

	static class Invalid {

		@ExclusiveRequest(eachKey = true)
		public void eachKeyWithoutKeys() {
		}

		@ExclusiveRequest(key = "#id", eachKey = true, onConflict = dev.lockstarter.annotation.OnConflict.SHARE_RESULT)
		public String eachKeyWithSharedResult(String id) {
			return id;
		}

		@ExclusiveRequest(key = "#orderId +")
		public void unparsableExpression(String orderId) {
		}

		@ExclusiveRequest(key = "#orderNumber")
		public void unknownParameter(String orderId) {
		}

		@ExclusiveRequest(ttl = "-1s")
		public void negativeTtl() {
		}

		@ExclusiveRequest(ttl = "500us")
		public void subMillisecondTtl() {
		}

		@ExclusiveRequest(waitTime = "-5s")
		public void negativeWaitTime() {
		}

		@ExclusiveRequest(holdAtLeast = "-1s")
		public void negativeHoldAtLeast() {
		}

		@ExclusiveRequest(ttl = "soon")
		public void unparsableTtl() {
		}

		@ExclusiveRequest
		public final void finalMethod() {
		}

	}

}
