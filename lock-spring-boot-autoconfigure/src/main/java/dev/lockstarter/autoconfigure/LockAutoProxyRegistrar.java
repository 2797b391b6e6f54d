package dev.lockstarter.autoconfigure;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Makes sure an auto-proxy creator exists, so that {@code @ExclusiveRequest} methods are
 * never left unproxied (and so unlocked) in an application that turned Spring Boot's AOP
 * auto-configuration off. Like {@code @EnableTransactionManagement}, it registers the
 * infrastructure auto-proxy creator only when no stronger one is present, and proxies
 * classes unless {@code spring.aop.proxy-target-class} is {@code false}.
 */
class LockAutoProxyRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

	private boolean proxyTargetClass = true;

	@Override
	public void setEnvironment(Environment environment) {
		this.proxyTargetClass = environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true);
	}

	@Override
	public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
		AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		if (this.proxyTargetClass) {
			AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
		}
	}

}
