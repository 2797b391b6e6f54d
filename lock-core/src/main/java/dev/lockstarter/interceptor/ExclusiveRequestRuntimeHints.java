package dev.lockstarter.interceptor;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * {@link RuntimeHintsRegistrar} for the types that the
 * {@link dev.lockstarter.annotation.ExclusiveRequest} machinery looks up by name, so that
 * they are found in a native image: the optional types behind startup validation and HTTP
 * statuses of shared failures, and the failure that the interceptor shares when a result
 * cannot be serialized. The hints that depend on the application's annotated methods come
 * from {@link ExclusiveRequestBeanRegistrationAotProcessor}.
 */
class ExclusiveRequestRuntimeHints implements RuntimeHintsRegistrar {

	private static final String RESPONSE_STATUS_EXCEPTION_TYPE_NAME = "org.springframework.web.server.ResponseStatusException";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		ReflectionHints reflection = hints.reflection();
		reflection.registerTypeIfPresent(classLoader, SharedFailures.WEB_TYPE_NAME);
		reflection.registerTypeIfPresent(classLoader, RESPONSE_STATUS_EXCEPTION_TYPE_NAME);
		reflection.registerTypeIfPresent(classLoader, ReturnTypes.PUBLISHER_TYPE_NAME);
		for (String typeName : ExclusiveRequestAnnotationParser.UNSHAREABLE_TYPE_NAMES) {
			reflection.registerTypeIfPresent(classLoader, typeName);
		}
		reflection.registerType(IllegalStateException.class,
				(type) -> type.withConstructor(TypeReference.listOf(String.class), ExecutableMode.INVOKE));
	}

}
