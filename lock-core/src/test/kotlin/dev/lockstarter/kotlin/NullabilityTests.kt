package dev.lockstarter.kotlin

import dev.lockstarter.core.Lease
import dev.lockstarter.core.LockAttempt
import dev.lockstarter.core.LockOptions
import dev.lockstarter.core.LockTemplate
import dev.lockstarter.store.memory.InMemoryLockStore
import org.assertj.core.api.Assertions.assertThat
import org.jspecify.annotations.NullMarked
import org.junit.jupiter.api.Test
import org.springframework.core.io.support.PathMatchingResourcePatternResolver
import java.time.Duration

/**
 * The API reads with the right nullability from Kotlin: every package of lock-core is
 * `@NullMarked`, so Kotlin (which reads JSpecify strictly) sees non-null types except
 * where `@Nullable` says otherwise.
 */
class NullabilityTests {

	@Test
	fun `every package of lock-core is NullMarked`() {
		val root = LockTemplate::class.java.protectionDomain.codeSource.location.toString()
		val classes = PathMatchingResourcePatternResolver().getResources("classpath*:dev/lockstarter/**/*.class")
			.map { it.url.toString() }
			.filter { it.startsWith(root) }
		val packages = classes.map { it.removePrefix(root).substringBeforeLast('/').replace('/', '.') }.toSortedSet()
		assertThat(packages).contains("dev.lockstarter.core", "dev.lockstarter.interceptor", "dev.lockstarter.store")
		val unmarked = packages.filter {
			runCatching { Class.forName("$it.package-info").isAnnotationPresent(NullMarked::class.java) }
				.getOrDefault(false)
				.not()
		}
		assertThat(unmarked).isEmpty()
	}

	@Test
	fun `nullable and non-null members read as such`() {
		val locks = LockTemplate(InMemoryLockStore())
		try {
			// Kotlin reads lease() as a Lease (no !! needed) and heldKey() as a String?, on
			// which a plain .length does not compile
			val attempt: LockAttempt = locks.tryAcquire("k", LockOptions.ttl(Duration.ofSeconds(5)))
			val lease: Lease = attempt.lease()
			val heldKey: String? = attempt.heldKey()
			assertThat(heldKey).isNull()
			assertThat(lease.key()).isEqualTo("k")
			val other = locks.tryAcquire("k", Duration.ofSeconds(5))
			assertThat(other.isAcquired).isFalse()
			assertThat(other.heldKey()?.length).isEqualTo(1)
			lease.close()
		}
		finally {
			locks.destroy()
		}
	}

}
