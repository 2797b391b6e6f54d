package dev.lockstarter.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.interceptor.ExclusiveRequestAdvisor;
import dev.lockstarter.interceptor.ExclusiveRequestAttributeSource;
import dev.lockstarter.interceptor.ExclusiveRequestInterceptor;
import dev.lockstarter.store.memory.InMemoryLockStore;
import org.springframework.aop.framework.autoproxy.InfrastructureAdvisorAutoProxyCreator;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.util.Assert;
import org.springframework.util.function.SingletonSupplier;

/**
 * The cost of {@link ExclusiveRequest} on a method, with the in-memory store, in a real
 * Spring context wired as the auto-configuration wires it: an
 * {@link ExclusiveRequestAttributeSource}, an {@link ExclusiveRequestAdvisor} with its
 * {@link ExclusiveRequestInterceptor}, the infrastructure auto-proxy creator with class
 * proxies, and a {@link LockTemplate} on an {@link InMemoryLockStore}.
 * <ul>
 * <li>{@code plainMethod}: the method on a bean that is not proxied: the baseline.</li>
 * <li>{@code unannotatedMethodOnProxy}: an unannotated method of a proxied bean: what the
 * CGLIB proxy alone costs.</li>
 * <li>{@code exclusiveRequest}: the annotated method: proxy, attribute lookup, SpEL key,
 * owner token, acquire and release on the in-memory store.</li>
 * <li>{@code lockTemplateOnly}: {@code try (Lease lease = locks.acquire(key, ttl)) {}} on
 * the same store, without a proxy: the part of the above that is not interception.</li>
 * </ul>
 * Keys rotate through 1024 values (as in the Redis benchmarks), so the store sees a fresh
 * key on most calls, as with distinct requests.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Threads(1)
@State(Scope.Benchmark)
public class InterceptorBenchmark {

	private static final Duration TTL = Duration.ofSeconds(30);

	private AnnotationConfigApplicationContext context;

	private Registrar proxied;

	private PlainRegistrar plain;

	private LockOperations locks;

	private final KeyRotation keys = new KeyRotation("user-", 0);

	@Setup(Level.Trial)
	public void start() {
		this.context = new AnnotationConfigApplicationContext(LockConfiguration.class);
		this.proxied = this.context.getBean("proxiedRegistrar", Registrar.class);
		this.plain = this.context.getBean("plainRegistrar", PlainRegistrar.class);
		this.locks = this.context.getBean(LockOperations.class);
		Assert.state(AopUtils.isCglibProxy(this.proxied), "the annotated bean must be proxied");
		Assert.state(!AopUtils.isAopProxy(this.plain), "the unannotated bean must not be proxied");
	}

	@TearDown(Level.Trial)
	public void stop() {
		this.context.close();
	}

	@Benchmark
	public String plainMethod() {
		return this.plain.register(this.keys.next());
	}

	@Benchmark
	public String unannotatedMethodOnProxy() {
		return this.proxied.register(this.keys.next());
	}

	@Benchmark
	public String exclusiveRequest() {
		return this.proxied.registerExclusively(this.keys.next());
	}

	@Benchmark
	public String lockTemplateOnly() {
		String userName = this.keys.next();
		try (Lease lease = this.locks.acquire("user-registration:" + userName, TTL)) {
			return this.plain.register(userName);
		}
	}

	/**
	 * A registration service: {@link #registerExclusively} is the locked entry point,
	 * {@link #register} the same work without the lock. The work itself is trivial, so
	 * that what is measured is the call path.
	 */
	public static class Registrar {

		@ExclusiveRequest(name = "user-registration", key = "#userName")
		public String registerExclusively(String userName) {
			return register(userName);
		}

		public String register(String userName) {
			return userName;
		}

	}

	/**
	 * The same work in a class without the annotation, so that no proxy is created for
	 * it.
	 */
	public static class PlainRegistrar {

		public String register(String userName) {
			return userName;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LockConfiguration {

		@Bean
		static InfrastructureAdvisorAutoProxyCreator autoProxyCreator() {
			InfrastructureAdvisorAutoProxyCreator creator = new InfrastructureAdvisorAutoProxyCreator();
			creator.setProxyTargetClass(true);
			return creator;
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static ExclusiveRequestAttributeSource exclusiveRequestAttributeSource() {
			return new ExclusiveRequestAttributeSource();
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static ExclusiveRequestAdvisor exclusiveRequestAdvisor(ExclusiveRequestAttributeSource attributeSource,
				ObjectProvider<LockOperations> locks) {
			// The auto-configuration's defaults are one instance until the properties
			// change
			LockOptions defaults = LockOptions.ttl(TTL);
			ExclusiveRequestInterceptor interceptor = new ExclusiveRequestInterceptor(attributeSource,
					SingletonSupplier.of(locks::getObject), () -> defaults);
			return new ExclusiveRequestAdvisor(attributeSource, interceptor);
		}

		@Bean
		LockTemplate lockTemplate() {
			return new LockTemplate(new InMemoryLockStore());
		}

		@Bean
		Registrar proxiedRegistrar() {
			return new Registrar();
		}

		@Bean
		PlainRegistrar plainRegistrar() {
			return new PlainRegistrar();
		}

	}

}
