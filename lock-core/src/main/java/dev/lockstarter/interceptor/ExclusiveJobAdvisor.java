package dev.lockstarter.interceptor;

import dev.lockstarter.core.Internal;

/**
 * Advisor that applies an {@link ExclusiveJobInterceptor} to every method with an
 * {@link dev.lockstarter.annotation.ExclusiveJob} declaration. Its default order is
 * {@link LockAdvisor#DEFAULT_ORDER}: outside {@code @Transactional}, so that the lock
 * covers the commit.
 *
 * @since 0.1.0
 */
@Internal
@SuppressWarnings("serial")
public class ExclusiveJobAdvisor extends LockAdvisor {

	/**
	 * Create a new advisor.
	 * @param attributeSource the source of parsed declarations
	 * @param interceptor the interceptor to apply
	 */
	public ExclusiveJobAdvisor(ExclusiveJobAttributeSource attributeSource, ExclusiveJobInterceptor interceptor) {
		super(attributeSource, interceptor);
	}

}
