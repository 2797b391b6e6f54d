package dev.lockstarter.interceptor;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;

import dev.lockstarter.annotation.ExclusiveJob;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Advisor that applies an {@link ExclusiveJobInterceptor} to every method with an
 * {@link ExclusiveJob} declaration. Its default order is that of
 * {@link ExclusiveRequestAdvisor}, {@link ExclusiveRequestAdvisor#DEFAULT_ORDER}: outside
 * {@code @Transactional}, so that the lock covers the commit.
 *
 * @since 0.1.0
 */
@SuppressWarnings("serial")
public class ExclusiveJobAdvisor extends AbstractPointcutAdvisor {

	private final transient ExclusiveJobInterceptor interceptor;

	private final transient Pointcut pointcut;

	/**
	 * Create a new advisor.
	 * @param attributeSource the source of parsed declarations
	 * @param interceptor the interceptor to apply
	 */
	public ExclusiveJobAdvisor(ExclusiveJobAttributeSource attributeSource, ExclusiveJobInterceptor interceptor) {
		this.interceptor = interceptor;
		this.pointcut = new ExclusiveJobPointcut(attributeSource);
		setOrder(ExclusiveRequestAdvisor.DEFAULT_ORDER);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

	private static final class ExclusiveJobPointcut extends StaticMethodMatcherPointcut {

		private final ExclusiveJobAttributeSource attributeSource;

		ExclusiveJobPointcut(ExclusiveJobAttributeSource attributeSource) {
			this.attributeSource = attributeSource;
			setClassFilter((type) -> AnnotationUtils.isCandidateClass(type, ExclusiveJob.class));
		}

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return this.attributeSource.getAttribute(method, targetClass) != null;
		}

	}

}
