package dev.lockstarter.server;

import java.util.List;

import jakarta.servlet.Filter;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.servlet.autoconfigure.HttpEncodingAutoConfiguration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.web.filter.CharacterEncodingFilter;
import org.springframework.web.filter.FormContentFilter;
import org.springframework.web.filter.RequestContextFilter;
import org.springframework.web.filter.ServerHttpObservationFilter;

/**
 * Maps the request filters that Spring Boot adds for Spring MVC (request encoding, form
 * bodies of {@code PUT} and {@code DELETE}, the request context holder, and the HTTP
 * observation) to the dispatcher servlet only. The lock servlet reads and writes bytes
 * and uses none of them, and {@link LockApiRequestMeters} times its requests, so the lock
 * API's requests pass through four filters fewer; the OpenAPI document, the probes and
 * Spring MVC's error pages keep them.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { HttpEncodingAutoConfiguration.class, WebMvcAutoConfiguration.class })
class SpringMvcFilters {

	@Bean
	@ConditionalOnBean(CharacterEncodingFilter.class)
	FilterRegistrationBean<CharacterEncodingFilter> characterEncodingFilterRegistration(
			CharacterEncodingFilter filter) {
		return onDispatcherServlet(filter);
	}

	@Bean
	@ConditionalOnBean(FormContentFilter.class)
	FilterRegistrationBean<FormContentFilter> formContentFilterRegistration(FormContentFilter filter) {
		return onDispatcherServlet(filter);
	}

	@Bean
	@ConditionalOnBean(RequestContextFilter.class)
	FilterRegistrationBean<RequestContextFilter> requestContextFilterRegistration(RequestContextFilter filter) {
		return onDispatcherServlet(filter);
	}

	/**
	 * Spring MVC's HTTP observation on the dispatcher servlet alone. Spring Boot
	 * registers it for every path; its registration is changed before the web server
	 * starts.
	 * @return the post-processor that maps it
	 */
	@Bean
	static BeanPostProcessor observationFilterOnDispatcherServlet() {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessBeforeInitialization(Object bean, String beanName) {
				if (bean instanceof FilterRegistrationBean<?> registration
						&& registration.getFilter() instanceof ServerHttpObservationFilter) {
					registration.setUrlPatterns(List.of());
					registration.setServletNames(
							List.of(DispatcherServletAutoConfiguration.DEFAULT_DISPATCHER_SERVLET_BEAN_NAME));
				}
				return bean;
			}

		};
	}

	/** The filter, in the order it has, on the dispatcher servlet alone. */
	private static <T extends Filter> FilterRegistrationBean<T> onDispatcherServlet(T filter) {
		FilterRegistrationBean<T> registration = new FilterRegistrationBean<>(filter);
		registration.setServletNames(List.of(DispatcherServletAutoConfiguration.DEFAULT_DISPATCHER_SERVLET_BEAN_NAME));
		if (filter instanceof Ordered ordered) {
			registration.setOrder(ordered.getOrder());
		}
		return registration;
	}

}
