package dev.lockstarter.interceptor;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;

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
 * of the first call.
 *
 * @since 0.1.0
 */
public class ExclusiveRequestMethodValidator implements BeanPostProcessor {

	private final ExclusiveRequestAttributeSource attributeSource;

	private final Set<Class<?>> checkedClasses = ConcurrentHashMap.newKeySet(64);

	private final Set<String> resultSharingMethods = new ConcurrentSkipListSet<>();

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
			ResultSharing sharing = (attribute != null) ? attribute.resultSharing() : null;
			if (sharing != null) {
				this.resultSharingMethods.add(sharing.describeMethod());
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
		return List.copyOf(this.resultSharingMethods);
	}

}
