package dev.lockstarter.interceptor;

import java.time.Duration;

import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import org.springframework.aop.framework.ProxyFactory;

/**
 * A {@link LockTemplate} on a switchable in-memory store and the
 * {@code @ExclusiveRequest} interceptor on it, with a 30 second time-to-live by default,
 * through which a test's beans are proxied.
 */
final class InterceptedLocks {

	final ExclusiveRequestInterceptorTests.SwitchableStore store = new ExclusiveRequestInterceptorTests.SwitchableStore();

	final LockTemplate locks = new LockTemplate(this.store, "");

	final ExclusiveRequestAttributeSource attributeSource = new ExclusiveRequestAttributeSource();

	final ExclusiveRequestInterceptor interceptor = new ExclusiveRequestInterceptor(this.attributeSource,
			() -> this.locks, () -> LockOptions.ttl(Duration.ofSeconds(30)));

	/**
	 * Return a class-based proxy of {@code target} that goes through the interceptor.
	 * @param target the bean
	 * @return the proxy
	 */
	<T> T proxy(T target) {
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new ExclusiveRequestAdvisor(this.attributeSource, this.interceptor));
		@SuppressWarnings("unchecked")
		T proxy = (T) factory.getProxy();
		return proxy;
	}

}
