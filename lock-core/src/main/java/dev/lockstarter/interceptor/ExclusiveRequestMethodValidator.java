package dev.lockstarter.interceptor;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Parses every {@link ExclusiveRequest} declaration of every bean while the application
 * starts, so that an invalid key expression, time-to-live or method fails startup instead
 * of the first call, and keeps the declarations it found, for the application to list
 * them (the Actuator {@code locks} endpoint does).
 * <p>
 * Each bean class is visited once, when the first bean of that class is initialized:
 * declarations of lazy or prototype beans appear once such a bean is created.
 *
 * @since 0.1.0
 */
public class ExclusiveRequestMethodValidator implements BeanPostProcessor {

	private final ExclusiveRequestAttributeSource attributeSource;

	private final Set<Class<?>> checkedClasses = ConcurrentHashMap.newKeySet(64);

	private final Map<String, ExclusiveRequestDeclaration> declarations = new ConcurrentHashMap<>(64);

	/**
	 * Create a new validator.
	 * @param attributeSource the source that parses and caches declarations
	 */
	public ExclusiveRequestMethodValidator(ExclusiveRequestAttributeSource attributeSource) {
		this.attributeSource = attributeSource;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof AopInfrastructureBean) {
			return bean;
		}
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
		if (this.checkedClasses.contains(targetClass)
				|| !AnnotationUtils.isCandidateClass(targetClass, ExclusiveRequest.class)) {
			return bean;
		}
		Map<java.lang.reflect.Method, ExclusiveRequest> methods = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<ExclusiveRequest>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, ExclusiveRequest.class));
		methods.keySet().forEach((method) -> {
			ExclusiveRequestAttribute attribute = this.attributeSource.getAttribute(method, targetClass);
			if (attribute != null) {
				ExclusiveRequestDeclaration declaration = new ExclusiveRequestDeclaration(targetClass, method,
						attribute);
				this.declarations.put(targetClass.getName() + "#" + declaration.describeMethod(), declaration);
			}
		});
		this.checkedClasses.add(targetClass);
		return bean;
	}

	/**
	 * Return the methods found so far whose declaration shares results
	 * ({@link dev.lockstarter.annotation.OnConflict#SHARE_RESULT}), so that the
	 * application can check at startup that its lock store keeps results.
	 * @return the methods, as {@code ClassName.method(ParamType, ...)}, sorted
	 */
	public List<String> getResultSharingMethods() {
		return this.declarations.values()
			.stream()
			.map(ExclusiveRequestDeclaration::attribute)
			.map(ExclusiveRequestAttribute::resultSharing)
			.filter((sharing) -> sharing != null)
			.map(ResultSharing::describeMethod)
			.distinct()
			.sorted()
			.toList();
	}

	/**
	 * Return the declarations found so far, in the beans initialized so far.
	 * @return the declarations, sorted by lock name, then by method
	 */
	public List<ExclusiveRequestDeclaration> getDeclarations() {
		return this.declarations.values()
			.stream()
			.sorted(Comparator.comparing((ExclusiveRequestDeclaration declaration) -> declaration.attribute().name())
				.thenComparing(ExclusiveRequestDeclaration::describeMethod)
				.thenComparing((declaration) -> declaration.targetClass().getName()))
			.toList();
	}

}
