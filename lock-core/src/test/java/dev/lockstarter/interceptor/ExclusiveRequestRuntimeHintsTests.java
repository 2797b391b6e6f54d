package dev.lockstarter.interceptor;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.ReflectionHintsPredicates;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.http.HttpEntity;
import org.springframework.util.ClassUtils;
import org.springframework.web.ErrorResponse;
import org.springframework.web.server.ResponseStatusException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ExclusiveRequestRuntimeHints}.
 */
class ExclusiveRequestRuntimeHintsTests {

	private static final ReflectionHintsPredicates reflection = RuntimeHintsPredicates.reflection();

	private final RuntimeHints hints = new RuntimeHints();

	ExclusiveRequestRuntimeHintsTests() {
		new ExclusiveRequestRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void registrarIsListedInAotFactories() {
		assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(ExclusiveRequestRuntimeHints.class);
	}

	@Test
	void typesLookedUpByNameAreRegisteredWithoutMembers() {
		assertThat(reflection.onType(ErrorResponse.class)).accepts(this.hints);
		assertThat(reflection.onType(ResponseStatusException.class)).accepts(this.hints);
		assertThat(reflection.onType(HttpEntity.class)).accepts(this.hints);
		assertThat(reflection.onType(Resource.class)).accepts(this.hints);
		assertThat(reflection.onType(ResponseStatusException.class)
			.withAnyMemberCategory(MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS, MemberCategory.INVOKE_PUBLIC_METHODS))
			.rejects(this.hints);
	}

	@Test
	void typesThatAreNotPresentAreNotRegistered() {
		String modelAndView = "org.springframework.web.servlet.ModelAndView";
		assertThat(ClassUtils.isPresent(modelAndView, getClass().getClassLoader())).isFalse();
		assertThat(reflection.onType(TypeReference.of(modelAndView))).rejects(this.hints);
	}

	@Test
	void failureSharedForAnUnserializableResultCanBeCreatedAgain() throws Exception {
		assertThat(reflection.onConstructorInvocation(IllegalStateException.class.getConstructor(String.class)))
			.accepts(this.hints);
		assertThat(reflection.onConstructorInvocation(IllegalStateException.class.getConstructor()))
			.rejects(this.hints);
	}

}
