package dev.lockstarter.interceptor;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Advisor that applies an {@link ExclusiveRequestInterceptor} to every method with an
 * {@link ExclusiveRequest} declaration.
 * <p>
 * Its {@linkplain #DEFAULT_ORDER default order} places the lock outside
 * {@code @Transactional} (whose advisor has the lowest precedence), so that a lock is
 * released only after the transaction commits or rolls back, and outside caching and
 * retry advice that use the lowest precedence too.
 *
 * @since 0.1.0
 */
@SuppressWarnings("serial")
public class ExclusiveRequestAdvisor extends AbstractPointcutAdvisor implements SmartInitializingSingleton {

	/** The default order: {@code Ordered.LOWEST_PRECEDENCE - 100}. */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private final transient ExclusiveRequestInterceptor interceptor;

	private final transient Pointcut pointcut;

	/**
	 * Create a new advisor.
	 * @param attributeSource the source of parsed declarations
	 * @param interceptor the interceptor to apply
	 */
	public ExclusiveRequestAdvisor(ExclusiveRequestAttributeSource attributeSource,
			ExclusiveRequestInterceptor interceptor) {
		this.interceptor = interceptor;
		this.pointcut = new ExclusiveRequestPointcut(attributeSource);
		setOrder(DEFAULT_ORDER);
	}

	/**
	 * Resolve what the interceptor would otherwise resolve on its first call, once the
	 * application's singletons exist: the first calls of reactive methods may arrive
	 * together on event-loop threads, which must not wait for one another.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		this.interceptor.prepare();
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

	private static final class ExclusiveRequestPointcut extends StaticMethodMatcherPointcut {

		private final ExclusiveRequestAttributeSource attributeSource;

		ExclusiveRequestPointcut(ExclusiveRequestAttributeSource attributeSource) {
			this.attributeSource = attributeSource;
			setClassFilter(ExclusiveRequestPointcut::isCandidate);
		}

		private static boolean isCandidate(Class<?> type) {
			return AnnotationUtils.isCandidateClass(type, ExclusiveRequest.class);
		}

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return this.attributeSource.getAttribute(method, targetClass) != null;
		}

	}

}
