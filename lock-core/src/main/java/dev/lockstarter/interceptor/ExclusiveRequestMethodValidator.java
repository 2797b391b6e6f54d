package dev.lockstarter.interceptor;

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
 * starts, so that an invalid key expression, time-to-live or method fails startup instead of
 * the first call.
 *
 * @since 0.1.0
 */
public class ExclusiveRequestMethodValidator implements BeanPostProcessor {

	private final ExclusiveRequestAttributeSource attributeSource;

	private final Set<Class<?>> checkedClasses = ConcurrentHashMap.newKeySet(64);

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
		methods.keySet().forEach((method) -> this.attributeSource.getAttribute(method, targetClass));
		this.checkedClasses.add(targetClass);
		return bean;
	}

}
