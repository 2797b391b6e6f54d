package dev.lockstarter.interceptor;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.store.LockException;
import dev.lockstarter.store.LockStoreException;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for the resolution of {@link FallbackMethod}s: which methods answer for an
 * {@code @ExclusiveRequest} method, and how a declaration whose fallback cannot fails
 * when the application starts.
 */
class FallbackMethodTests {

	private final ExclusiveRequestAttributeSource attributeSource = new ExclusiveRequestAttributeSource();

	@Test
	void fallbackWithTheSameParametersIsResolved() {
		assertThat(fallbackOf("plain")).isEqualTo(method(Valid.class, "plainFallback"));
	}

	@Test
	void fallbackThatTakesWiderParametersAndTheFailureIsResolved() {
		assertThat(fallbackOf("widened")).isEqualTo(method(Valid.class, "widenedFallback"));
	}

	@Test
	void fallbackReturningASubtypeIsResolved() {
		assertThat(fallbackOf("number")).isEqualTo(method(Valid.class, "numberFallback"));
	}

	@Test
	void fallbackOfAnAsynchronousOrReactiveMethodReturnsACompatibleContainer() {
		assertThat(fallbackOf("stage")).isEqualTo(method(Valid.class, "stageFallback"));
		assertThat(fallbackOf("mono")).isEqualTo(method(Valid.class, "monoFallback"));
		assertThat(fallbackOf("flux")).isEqualTo(method(Valid.class, "fluxFallback"));
	}

	@Test
	void fallbackInheritedFromASuperclassIsResolved() {
		assertThat(fallbackOf("inherited")).isEqualTo(method(Base.class, "inheritedFallback"));
	}

	@Test
	void methodWithoutAFallbackHasNone() {
		assertThat(fallbackOf("none")).isNull();
	}

	@Test
	void missingFallbackFailsNamingTheMethodAndTheAttribute() {
		assertThatExceptionOfType(InvalidExclusiveRequestException.class).isThrownBy(() -> parse("missing"))
			.satisfies((ex) -> assertThat(ex.getMethod()).isEqualTo(Invalid.class.getName() + ".missing(String)"))
			.withMessageContaining("fallback = \"nowhere\" names no method of " + Invalid.class.getName())
			.withMessageContaining("declare a method (java.lang.String) or (..., LockConflictException) "
					+ "returning java.lang.String");
	}

	@Test
	void fallbackWithOtherParameterTypesFails() {
		assertThatExceptionOfType(InvalidExclusiveRequestException.class).isThrownBy(() -> parse("wrongType"))
			.withMessageContaining("fallback = \"wrongTypeFallback\" has no method that takes the parameters")
			.withMessageContaining("takes java.lang.Integer as parameter 1, which cannot receive the "
					+ "java.lang.String of the method");
	}

	@Test
	void fallbackWithAnotherNumberOfParametersFails() {
		assertThatExceptionOfType(InvalidExclusiveRequestException.class).isThrownBy(() -> parse("wrongCount"))
			.withMessageContaining("takes 0 parameter(s), not 1 or 2");
	}

	@Test
	void fallbackWhoseLastParameterCannotReceiveTheConflictFails() {
		assertThatExceptionOfType(InvalidExclusiveRequestException.class).isThrownBy(() -> parse("wrongFailure"))
			.withMessageContaining("takes a LockStoreException as its last parameter, which cannot receive the "
					+ "LockConflictException");
	}

	@Test
	void fallbackOnStoreFailureNeedsALastParameterThatReceivesBothFailures() {
		assertThatExceptionOfType(InvalidExclusiveRequestException.class).isThrownBy(() -> parse("conflictOnly"))
			.withMessageContaining("cannot receive the LockStoreException of fallbackOnStoreFailure = true; "
					+ "declare it as a LockException");
	}

	@Test
	void fallbackWithAnIncompatibleReturnTypeFails() {
		assertThatExceptionOfType(InvalidExclusiveRequestException.class).isThrownBy(() -> parse("wrongReturn"))
			.withMessageContaining("fallback = \"wrongReturnFallback\" cannot answer for this method: "
					+ Invalid.class.getName() + ".wrongReturnFallback(String) returns java.lang.Integer, which is "
					+ "not assignable to the method's java.lang.String");
	}

	@Test
	void fallbackOfAReactiveMethodMustReturnTheSameKindOfPublisherOfACompatibleValue() {
		assertThatExceptionOfType(InvalidExclusiveRequestException.class).isThrownBy(() -> parse("monoOfOther"))
			.withMessageContaining("returns reactor.core.publisher.Mono<java.lang.Integer>, not a "
					+ "reactor.core.publisher.Mono<java.lang.String>");
		assertThatExceptionOfType(InvalidExclusiveRequestException.class).isThrownBy(() -> parse("fluxForMono"))
			.withMessageContaining("returns reactor.core.publisher.Flux<java.lang.String>, not a "
					+ "reactor.core.publisher.Mono<java.lang.String>");
		assertThatExceptionOfType(InvalidExclusiveRequestException.class).isThrownBy(() -> parse("valueForMono"))
			.withMessageContaining("returns java.lang.String, not a reactor.core.publisher.Mono<java.lang.String>");
	}

	@Test
	void fallbackOfAVoidMethodMustReturnNothing() {
		assertThatExceptionOfType(InvalidExclusiveRequestException.class).isThrownBy(() -> parse("voidMethod"))
			.withMessageContaining("returns java.lang.String, which is not assignable to the method's void");
	}

	@Test
	void twoOverloadsThatBothFitFailAsAmbiguous() {
		assertThatExceptionOfType(InvalidExclusiveRequestException.class).isThrownBy(() -> parse("ambiguous"))
			.withMessageContaining("fallback = \"ambiguousFallback\" is ambiguous: ")
			.withMessageContaining(Invalid.class.getName() + ".ambiguousFallback(String)")
			.withMessageContaining(Invalid.class.getName() + ".ambiguousFallback(String, LockConflictException)")
			.withMessageContaining("keep one of them or rename the other");
	}

	@Test
	void overloadThatDoesNotFitIsNoAmbiguity() {
		assertThat(fallbackOf(Valid.class, "overloaded"))
			.isEqualTo(ReflectionUtils.findMethod(Valid.class, "overloadedFallback", String.class));
	}

	@Test
	void staticFallbackFails() {
		assertThatExceptionOfType(InvalidExclusiveRequestException.class).isThrownBy(() -> parse("staticOne"))
			.withMessageContaining("names a static method");
	}

	@Test
	void fallbackOnStoreFailureWithoutAFallbackFails() {
		assertThatExceptionOfType(InvalidExclusiveRequestException.class).isThrownBy(() -> parse("storeOnly"))
			.withMessageContaining("fallbackOnStoreFailure = true needs a fallback method");
	}

	@Test
	void fallbackCannotBeCombinedWithSharedResults() {
		assertThatExceptionOfType(InvalidExclusiveRequestException.class).isThrownBy(() -> parse("shared"))
			.withMessageContaining("fallback cannot be combined with onConflict = SHARE_RESULT");
	}

	@Test
	void invalidFallbackFailsTheBeanWhenTheApplicationStarts() {
		ExclusiveRequestMethodValidator validator = new ExclusiveRequestMethodValidator(this.attributeSource);
		assertThatExceptionOfType(InvalidExclusiveRequestException.class)
			.isThrownBy(() -> validator.postProcessAfterInitialization(new Invalid(), "invalid"))
			.withMessageStartingWith("Invalid @ExclusiveRequest on " + Invalid.class.getName() + ".");
		assertThat(validator.postProcessAfterInitialization(new Valid(), "valid")).isNotNull();
		assertThat(validator.getDeclarations())
			.anySatisfy((declaration) -> assertThat(declaration.attribute().fallbackMethod())
				.isEqualTo(method(Valid.class, "plainFallback")));
	}

	private Method fallbackOf(String name) {
		return fallbackOf(Valid.class, name);
	}

	private Method fallbackOf(Class<?> type, String name) {
		ExclusiveRequestAttribute attribute = this.attributeSource.getAttribute(method(type, name), type);
		assertThat(attribute).isNotNull();
		return attribute.fallbackMethod();
	}

	private void parse(String name) {
		this.attributeSource.getAttribute(method(Invalid.class, name), Invalid.class);
	}

	private static Method method(Class<?> type, String name) {
		Method[] methods = ReflectionUtils.getUniqueDeclaredMethods(type, (method) -> method.getName().equals(name));
		assertThat(methods).hasSize(1);
		return methods[0];
	}

	static class Base {

		String inheritedFallback(String tenant) {
			return tenant;
		}

	}

	static class Valid extends Base {

		@ExclusiveRequest(fallback = "plainFallback")
		public String plain(String tenant, int rows) {
			return tenant;
		}

		String plainFallback(String tenant, int rows) {
			return tenant;
		}

		@ExclusiveRequest(fallback = "widenedFallback")
		public String widened(String tenant, List<String> ids) {
			return tenant;
		}

		private String widenedFallback(CharSequence tenant, Iterable<String> ids, LockException failure) {
			return "later";
		}

		@ExclusiveRequest(fallback = "numberFallback")
		public Number number(String tenant) {
			return 1;
		}

		Integer numberFallback(String tenant) {
			return 0;
		}

		@ExclusiveRequest(fallback = "stageFallback")
		public CompletionStage<CharSequence> stage(String tenant) {
			return CompletableFuture.completedFuture(tenant);
		}

		CompletableFuture<String> stageFallback(String tenant) {
			return CompletableFuture.completedFuture(tenant);
		}

		@ExclusiveRequest(fallback = "monoFallback")
		public Mono<String> mono(String tenant) {
			return Mono.just(tenant);
		}

		Mono<String> monoFallback(String tenant, LockConflictException conflict) {
			return Mono.just(tenant);
		}

		@ExclusiveRequest(fallback = "fluxFallback")
		public Flux<Object> flux(String tenant) {
			return Flux.just(tenant);
		}

		Flux<String> fluxFallback(String tenant) {
			return Flux.just(tenant);
		}

		@ExclusiveRequest(fallback = "inheritedFallback")
		public String inherited(String tenant) {
			return tenant;
		}

		@ExclusiveRequest
		public String none(String tenant) {
			return tenant;
		}

		@ExclusiveRequest(fallback = "overloadedFallback")
		public String overloaded(String tenant) {
			return tenant;
		}

		String overloadedFallback(String tenant) {
			return tenant;
		}

		String overloadedFallback(Integer rows) {
			return "rows";
		}

	}

	static class Invalid {

		@ExclusiveRequest(fallback = "nowhere")
		public String missing(String tenant) {
			return tenant;
		}

		@ExclusiveRequest(fallback = "wrongTypeFallback")
		public String wrongType(String tenant) {
			return tenant;
		}

		String wrongTypeFallback(Integer tenant) {
			return "";
		}

		@ExclusiveRequest(fallback = "wrongCountFallback")
		public String wrongCount(String tenant) {
			return tenant;
		}

		String wrongCountFallback() {
			return "";
		}

		@ExclusiveRequest(fallback = "wrongFailureFallback")
		public String wrongFailure(String tenant) {
			return tenant;
		}

		String wrongFailureFallback(String tenant, LockStoreException failure) {
			return "";
		}

		@ExclusiveRequest(fallback = "conflictOnlyFallback", fallbackOnStoreFailure = true)
		public String conflictOnly(String tenant) {
			return tenant;
		}

		String conflictOnlyFallback(String tenant, LockConflictException conflict) {
			return "";
		}

		@ExclusiveRequest(fallback = "wrongReturnFallback")
		public String wrongReturn(String tenant) {
			return tenant;
		}

		Integer wrongReturnFallback(String tenant) {
			return 0;
		}

		@ExclusiveRequest(fallback = "monoOfOtherFallback")
		public Mono<String> monoOfOther(String tenant) {
			return Mono.just(tenant);
		}

		Mono<Integer> monoOfOtherFallback(String tenant) {
			return Mono.just(0);
		}

		@ExclusiveRequest(fallback = "fluxForMonoFallback")
		public Mono<String> fluxForMono(String tenant) {
			return Mono.just(tenant);
		}

		Flux<String> fluxForMonoFallback(String tenant) {
			return Flux.just(tenant);
		}

		@ExclusiveRequest(fallback = "valueForMonoFallback")
		public Mono<String> valueForMono(String tenant) {
			return Mono.just(tenant);
		}

		String valueForMonoFallback(String tenant) {
			return tenant;
		}

		@ExclusiveRequest(fallback = "voidMethodFallback")
		public void voidMethod(String tenant) {
		}

		String voidMethodFallback(String tenant) {
			return tenant;
		}

		@ExclusiveRequest(fallback = "ambiguousFallback")
		public String ambiguous(String tenant) {
			return tenant;
		}

		String ambiguousFallback(String tenant) {
			return tenant;
		}

		String ambiguousFallback(String tenant, LockConflictException conflict) {
			return tenant;
		}

		@ExclusiveRequest(fallback = "staticOneFallback")
		public String staticOne(String tenant) {
			return tenant;
		}

		static String staticOneFallback(String tenant) {
			return tenant;
		}

		@ExclusiveRequest(fallbackOnStoreFailure = true)
		public String storeOnly(String tenant) {
			return tenant;
		}

		@ExclusiveRequest(onConflict = OnConflict.SHARE_RESULT, fallback = "sharedFallback")
		public String shared(String tenant) {
			return tenant;
		}

		String sharedFallback(String tenant) {
			return tenant;
		}

	}

}
