package dev.lockstarter.interceptor;

import java.lang.reflect.Method;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.lockstarter.annotation.ExclusiveJob;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Parses every {@link ExclusiveJob} declaration of every bean while the application
 * starts, so that an invalid duration or method fails startup instead of the first tick,
 * and keeps the declarations it found, for the application to list them (the Actuator
 * {@code locks} endpoint does).
 * <p>
 * Each bean class is visited once, when the first bean of that class is initialized.
 *
 * @since 0.1.0
 */
public class ExclusiveJobMethodValidator implements BeanPostProcessor {

	private final ExclusiveJobAttributeSource attributeSource;

	private final Set<Class<?>> checkedClasses = ConcurrentHashMap.newKeySet(64);

	private final Map<String, ExclusiveJobDeclaration> declarations = new ConcurrentHashMap<>(16);

	/**
	 * Create a new validator.
	 * @param attributeSource the source that parses and caches declarations
	 */
	public ExclusiveJobMethodValidator(ExclusiveJobAttributeSource attributeSource) {
		this.attributeSource = attributeSource;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof AopInfrastructureBean) {
			return bean;
		}
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
		if (this.checkedClasses.contains(targetClass)
				|| !AnnotationUtils.isCandidateClass(targetClass, ExclusiveJob.class)) {
			return bean;
		}
		Map<Method, ExclusiveJob> methods = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<ExclusiveJob>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, ExclusiveJob.class));
		methods.keySet().forEach((method) -> {
			ExclusiveJobAttribute attribute = this.attributeSource.getAttribute(method, targetClass);
			if (attribute != null) {
				ExclusiveJobDeclaration declaration = new ExclusiveJobDeclaration(targetClass, method, attribute);
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
	public List<ExclusiveJobDeclaration> getDeclarations() {
		return this.declarations.values()
			.stream()
			.sorted(Comparator.comparing((ExclusiveJobDeclaration declaration) -> declaration.attribute().name())
				.thenComparing(ExclusiveJobDeclaration::describeMethod)
				.thenComparing((declaration) -> declaration.targetClass().getName()))
			.toList();
	}

}
