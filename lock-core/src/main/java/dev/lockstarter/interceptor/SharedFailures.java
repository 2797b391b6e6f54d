package dev.lockstarter.interceptor;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.SharedFailureException;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.HttpStatusCode;
import org.springframework.util.ClassUtils;
import org.springframework.web.ErrorResponse;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.server.ResponseStatusException;

/**
 * Turns a holder's exception into a {@link SharedResult} failure record, and a record
 * back into an exception for the callers that waited. An exception is created again only
 * when its type is a {@link RuntimeException}, or a checked exception the method
 * declares, with a public {@code (String)} constructor; otherwise the callers get a
 * {@link SharedFailureException}.
 */
final class SharedFailures {

	/** The Spring Web type whose presence enables HTTP statuses, looked up by name. */
	static final String WEB_TYPE_NAME = "org.springframework.web.ErrorResponse";

	private static final boolean WEB_PRESENT = ClassUtils.isPresent(WEB_TYPE_NAME,
			SharedFailures.class.getClassLoader());

	private SharedFailures() {
	}

	static SharedResult record(Throwable failure) {
		String message = WEB_PRESENT ? WebStatus.message(failure) : failure.getMessage();
		int status = WEB_PRESENT ? WebStatus.of(failure) : 0;
		return SharedResult.failure(failure.getClass().getName(), message, status);
	}

	static Throwable recreate(SharedResult record, Method method, String lockName) {
		String typeName = record.failureType();
		Class<?> type = loadThrowable(typeName, method);
		if (type != null && (RuntimeException.class.isAssignableFrom(type) || isDeclared(type, method))) {
			Throwable recreated = WEB_PRESENT ? WebStatus.recreate(type, record) : null;
			if (recreated == null) {
				recreated = instantiate(type, record.failureMessage());
			}
			if (recreated != null) {
				return recreated;
			}
		}
		return new SharedFailureException(lockName, typeName, record.failureMessage(), record.status());
	}

	private static @Nullable Class<?> loadThrowable(String typeName, Method method) {
		try {
			Class<?> type = Class.forName(typeName, false, method.getDeclaringClass().getClassLoader());
			return (Throwable.class.isAssignableFrom(type) && !Modifier.isAbstract(type.getModifiers())) ? type : null;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return null;
		}
	}

	private static boolean isDeclared(Class<?> type, Method method) {
		if (Error.class.isAssignableFrom(type)) {
			return false;
		}
		for (Class<?> declared : method.getExceptionTypes()) {
			if (declared.isAssignableFrom(type)) {
				return true;
			}
		}
		return false;
	}

	private static @Nullable Throwable instantiate(Class<?> type, @Nullable String message) {
		try {
			Constructor<?> constructor = messageConstructor(type);
			return (constructor != null) ? (Throwable) constructor.newInstance(message) : null;
		}
		catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
			return null;
		}
	}

	/**
	 * Return the constructor through which a failure of the given type is created again:
	 * the public {@code (String)} constructor of a public, concrete {@link Throwable}.
	 * @param type the failure type
	 * @return the constructor, or {@code null} if the type has none
	 */
	static @Nullable Constructor<?> messageConstructor(Class<?> type) {
		int modifiers = type.getModifiers();
		if (!Throwable.class.isAssignableFrom(type) || !Modifier.isPublic(modifiers)
				|| Modifier.isAbstract(modifiers)) {
			return null;
		}
		return ClassUtils.getConstructorIfAvailable(type, String.class);
	}

	/**
	 * Inner class to allow the optional Spring Web dependency.
	 */
	private static final class WebStatus {

		static int of(Throwable failure) {
			if (failure instanceof ErrorResponse response) {
				return response.getStatusCode().value();
			}
			ResponseStatus annotation = AnnotatedElementUtils.findMergedAnnotation(failure.getClass(),
					ResponseStatus.class);
			return (annotation != null) ? annotation.code().value() : 0;
		}

		static @Nullable String message(Throwable failure) {
			if (failure instanceof ResponseStatusException response) {
				return response.getReason();
			}
			return failure.getMessage();
		}

		static @Nullable Throwable recreate(Class<?> type, SharedResult record) {
			if (type == ResponseStatusException.class && record.status() >= 100 && record.status() <= 999) {
				return new ResponseStatusException(HttpStatusCode.valueOf(record.status()), record.failureMessage());
			}
			return null;
		}

	}

}
