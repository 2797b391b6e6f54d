package dev.lockstarter.interceptor;

import java.lang.reflect.Method;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.lockstarter.core.Internal;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.Assert;

/**
 * Parses every declaration of one lock annotation on every bean while the application
 * starts, so that an invalid declaration (a key expression, a duration, a method a proxy
 * cannot intercept) fails startup instead of the first call, and keeps the declarations
 * it found, for the application to list them (the Actuator {@code locks} endpoint does).
 * <p>
 * Each bean class is visited once, when the first bean of that class is initialized:
 * declarations of lazy or prototype beans appear once such a bean is created.
 *
 * @param <A> the type of the parsed declarations
 * @since 0.1.0
 */
@Internal
public class LockMethodValidator<A extends LockAttribute> implements BeanPostProcessor {

	private final LockAttributeSource<A> attributeSource;

	private final Set<Class<?>> checkedClasses = ConcurrentHashMap.newKeySet(64);

	private final Map<String, LockDeclaration<A>> declarations = new ConcurrentHashMap<>(64);

	/**
	 * Create a new validator.
	 * @param attributeSource the source that parses and caches declarations
	 */
	public LockMethodValidator(LockAttributeSource<A> attributeSource) {
		Assert.notNull(attributeSource, "'attributeSource' must not be null");
		this.attributeSource = attributeSource;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof AopInfrastructureBean) {
			return bean;
		}
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
		if (this.checkedClasses.contains(targetClass) || !this.attributeSource.isCandidateClass(targetClass)) {
			return bean;
		}
		Map<Method, Object> methods = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<Object>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, this.attributeSource.annotationType()));
		methods.keySet().forEach((method) -> {
			A attribute = this.attributeSource.getAttribute(method, targetClass);
			if (attribute != null) {
				LockDeclaration<A> declaration = new LockDeclaration<>(targetClass, method, attribute);
				this.declarations.put(targetClass.getName() + "#" + declaration.describeMethod(), declaration);
			}
		});
		this.checkedClasses.add(targetClass);
		return bean;
	}

	/**
	 * Return the declarations found so far, in the beans initialized so far.
	 * @return the declarations, sorted by lock name, then by method
	 */
	public List<LockDeclaration<A>> getDeclarations() {
		return this.declarations.values()
			.stream()
			.sorted(Comparator.comparing((LockDeclaration<A> declaration) -> declaration.attribute().name())
				.thenComparing(LockDeclaration::describeMethod)
				.thenComparing((declaration) -> declaration.targetClass().getName()))
			.toList();
	}

}
