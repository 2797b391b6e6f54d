package dev.lockstarter.interceptor;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * The optional libraries that decide how a method's return type is handled, each looked
 * up once by name so that none of them is required.
 */
final class ReturnTypes {

	/** The root of reactive types, looked up by name. */
	static final String PUBLISHER_TYPE_NAME = "org.reactivestreams.Publisher";

	/** Whether reactive methods can be locked: they are handled with Reactor. */
	static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Flux",
			ReturnTypes.class.getClassLoader());

	/**
	 * Whether Kotlin {@code suspend} functions can be locked: Spring AOP runs them as a
	 * {@code Mono} (or a {@code Flux} for a {@code Flow}) only with
	 * kotlinx-coroutines-reactor.
	 */
	static final boolean COROUTINES_REACTOR_PRESENT = ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt",
			ReturnTypes.class.getClassLoader());

	private static final @Nullable Class<?> PUBLISHER = load(PUBLISHER_TYPE_NAME);

	private ReturnTypes() {
	}

	/** Whether a return type is a Reactive Streams {@code Publisher}. */
	static boolean isPublisher(Class<?> returnType) {
		return PUBLISHER != null && PUBLISHER.isAssignableFrom(returnType);
	}

	/** Load an optional type; {@code null} when it is absent. */
	static @Nullable Class<?> load(String name) {
		try {
			return ClassUtils.forName(name, ReturnTypes.class.getClassLoader());
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return null;
		}
	}

}
