package dev.lockstarter.interceptor;

import dev.lockstarter.core.Internal;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Advisor that applies an {@link ExclusiveRequestInterceptor} to every method with an
 * {@link dev.lockstarter.annotation.ExclusiveRequest} declaration, by default in the
 * {@linkplain LockAdvisor#DEFAULT_ORDER order} that places the lock outside
 * {@code @Transactional}.
 *
 * @since 0.1.0
 */
@Internal
@SuppressWarnings("serial")
public class ExclusiveRequestAdvisor extends LockAdvisor implements SmartInitializingSingleton {

	private final transient ExclusiveRequestInterceptor interceptor;

	/**
	 * Create a new advisor.
	 * @param attributeSource the source of parsed declarations
	 * @param interceptor the interceptor to apply
	 */
	public ExclusiveRequestAdvisor(ExclusiveRequestAttributeSource attributeSource,
			ExclusiveRequestInterceptor interceptor) {
		super(attributeSource, interceptor);
		this.interceptor = interceptor;
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

}
