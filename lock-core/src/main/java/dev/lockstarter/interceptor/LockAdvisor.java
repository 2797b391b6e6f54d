package dev.lockstarter.interceptor;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;

import dev.lockstarter.core.Internal;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.Ordered;
import org.springframework.util.Assert;

/**
 * Advisor that applies a lock interceptor to every method that its
 * {@link LockAttributeSource} finds a declaration on.
 * <p>
 * Its {@linkplain #DEFAULT_ORDER default order} places the lock outside
 * {@code @Transactional} (whose advisor has the lowest precedence), so that a lock is
 * released only after the transaction commits or rolls back, and outside caching and
 * retry advice that use the lowest precedence too.
 *
 * @since 0.1.0
 */
@Internal
@SuppressWarnings("serial")
public abstract class LockAdvisor extends AbstractPointcutAdvisor {

	/** The default order: {@code Ordered.LOWEST_PRECEDENCE - 100}. */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private final transient MethodInterceptor interceptor;

	private final transient Pointcut pointcut;

	LockAdvisor(LockAttributeSource<?> attributeSource, MethodInterceptor interceptor) {
		Assert.notNull(attributeSource, "'attributeSource' must not be null");
		Assert.notNull(interceptor, "'interceptor' must not be null");
		this.interceptor = interceptor;
		this.pointcut = new DeclarationPointcut(attributeSource);
		setOrder(DEFAULT_ORDER);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

	private static final class DeclarationPointcut extends StaticMethodMatcherPointcut {

		private final LockAttributeSource<?> attributeSource;

		DeclarationPointcut(LockAttributeSource<?> attributeSource) {
			this.attributeSource = attributeSource;
			setClassFilter(attributeSource::isCandidateClass);
		}

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return this.attributeSource.getAttribute(method, targetClass) != null;
		}

	}

}
