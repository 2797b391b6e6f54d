package dev.lockstarter.kotlin

import dev.lockstarter.core.LockOptions
import dev.lockstarter.core.LockTemplate
import dev.lockstarter.interceptor.ExclusiveRequestAdvisor
import dev.lockstarter.interceptor.ExclusiveRequestAttributeSource
import dev.lockstarter.interceptor.ExclusiveRequestInterceptor
import dev.lockstarter.store.memory.InMemoryLockStore
import org.springframework.aop.framework.ProxyFactory
import java.time.Duration

/**
 * A [LockTemplate] on the in-memory store and the `@ExclusiveRequest` interceptor on it,
 * with a 30 second time-to-live by default, through which the tests' beans are proxied.
 */
class InterceptedLocks {

	val locks = LockTemplate(InMemoryLockStore())

	val attributeSource = ExclusiveRequestAttributeSource()

	val interceptor = ExclusiveRequestInterceptor(attributeSource, { locks },
			{ LockOptions.ttl(Duration.ofSeconds(30)) })

	/** A class-based proxy of [target] that goes through the interceptor. */
	fun <T : Any> proxy(target: T): T {
		val factory = ProxyFactory(target)
		factory.isProxyTargetClass = true
		factory.addAdvisor(ExclusiveRequestAdvisor(attributeSource, interceptor))
		@Suppress("UNCHECKED_CAST")
		return factory.proxy as T
	}

	fun destroy() = locks.destroy()

}
