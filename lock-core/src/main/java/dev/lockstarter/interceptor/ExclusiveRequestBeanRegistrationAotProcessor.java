package dev.lockstarter.interceptor;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.annotation.OnHolderFailure;
import dev.lockstarter.key.MethodKeyResolver;
import org.springframework.aot.generate.GenerationContext;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.aot.BeanRegistrationCode;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * AOT {@link BeanRegistrationAotProcessor} that registers the reflection hints that the
 * {@link ExclusiveRequest} methods of a bean need at runtime, beyond invoking the methods
 * themselves (which {@code @Reflective} on the annotation covers):
 * <ul>
 * <li>binding hints for the result type of a method that shares its result, which the
 * {@code ResultCodec} (JSON by default) writes and reads;</li>
 * <li>the {@code (String)} constructor of each exception such a method declares, through
 * which the holder's failure is created again for the callers that waited
 * ({@link OnHolderFailure#SHARE_FAILURE});</li>
 * <li>the getters and methods that the key expressions call on the arguments;</li>
 * <li>the {@link ExclusiveRequest#fallback() fallback method}, invoked instead of a
 * conflict.</li>
 * </ul>
 * Methods are found as the {@link ExclusiveRequestMethodValidator} finds them at startup.
 */
class ExclusiveRequestBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> beanClass = registeredBean.getBeanClass();
		if (!AnnotationUtils.isCandidateClass(beanClass, ExclusiveRequest.class)) {
			return null;
		}
		Map<Method, ExclusiveRequest> methods = MethodIntrospector.selectMethods(beanClass,
				(MethodIntrospector.MetadataLookup<ExclusiveRequest>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, ExclusiveRequest.class));
		return (!methods.isEmpty()) ? new AotContribution(methods) : null;
	}

	private static final class AotContribution implements BeanRegistrationAotContribution {

		private final BindingReflectionHintsRegistrar bindingRegistrar = new BindingReflectionHintsRegistrar();

		private final Map<Method, ExclusiveRequest> methods;

		AotContribution(Map<Method, ExclusiveRequest> methods) {
			this.methods = methods;
		}

		@Override
		public void applyTo(GenerationContext generationContext, BeanRegistrationCode beanRegistrationCode) {
			ReflectionHints hints = generationContext.getRuntimeHints().reflection();
			this.methods.forEach((method, annotation) -> {
				registerKeyHints(hints, method, annotation);
				registerFallbackHints(hints, method, annotation);
				if (annotation.onConflict() == OnConflict.SHARE_RESULT) {
					registerResultHints(hints, method);
					if (annotation.onHolderFailure() == OnHolderFailure.SHARE_FAILURE) {
						registerFailureHints(hints, method);
					}
				}
			});
		}

		private void registerKeyHints(ReflectionHints hints, Method method, ExclusiveRequest annotation) {
			MethodKeyResolver keyResolver;
			try {
				keyResolver = MethodKeyResolver.create(method, method.getName(), annotation.key());
			}
			catch (IllegalArgumentException ex) {
				// Invalid: the application fails to start with the reason
				return;
			}
			keyResolver.registerReflectionHints(hints);
		}

		/**
		 * The fallback is invoked reflectively: each method of its name, as the overloads
		 * are told apart when the application starts.
		 */
		private void registerFallbackHints(ReflectionHints hints, Method method, ExclusiveRequest annotation) {
			String fallback = annotation.fallback();
			if (StringUtils.hasText(fallback)) {
				ReflectionUtils.doWithMethods(method.getDeclaringClass(),
						(candidate) -> hints.registerMethod(candidate, ExecutableMode.INVOKE),
						(candidate) -> candidate.getName().equals(fallback));
			}
		}

		private void registerResultHints(ReflectionHints hints, Method method) {
			Type resultType = ExclusiveRequestAnnotationParser.sharedResultType(method);
			if (!ExclusiveRequestAnnotationParser.isVoid(ResolvableType.forType(resultType).resolve(Object.class))) {
				this.bindingRegistrar.registerReflectionHints(hints, resultType);
			}
		}

		private void registerFailureHints(ReflectionHints hints, Method method) {
			for (Class<?> exceptionType : method.getExceptionTypes()) {
				Constructor<?> constructor = !Error.class.isAssignableFrom(exceptionType)
						? SharedFailures.messageConstructor(exceptionType) : null;
				if (constructor != null) {
					hints.registerConstructor(constructor, ExecutableMode.INVOKE);
				}
			}
		}

	}

}
