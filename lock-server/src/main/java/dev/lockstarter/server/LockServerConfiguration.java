package dev.lockstarter.server;

import java.time.Duration;
import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import org.apache.catalina.core.StandardHost;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.tomcat.util.buf.EncodedSolidusHandling;

import dev.lockstarter.autoconfigure.LockProperties;
import dev.lockstarter.autoconfigure.metrics.LockMeters;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.web.LockExceptionHandler;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.tomcat.TomcatConnectorCustomizer;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * The lock server's beans. Settings that cannot work fail at startup, naming the property
 * to fix.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
class LockServerConfiguration {

	private static final Log logger = LogFactory.getLog(LockServerConfiguration.class);

	/** Time for the store's last answer after a wait ends. */
	private static final Duration ASYNC_MARGIN = Duration.ofSeconds(30);

	/** How often the connection of a waiting acquisition is checked for a hang-up. */
	private static final Duration HANG_UP_CHECK_INTERVAL = Duration.ofSeconds(1);

	@Bean
	ApiClients apiClients(LockServerProperties properties) {
		check(properties);
		ApiClients clients = new ApiClients(properties.getClients(), properties);
		if (clients.isEmpty()) {
			logger.warn("No client is configured (lock.server.clients): every lock request will be refused with 401");
		}
		return clients;
	}

	/**
	 * The locks of each namespace, whose acquisitions the starter's lock meters count
	 * ({@code lock.acquisitions}, {@code lock.waits}). They make no {@code lock.acquire}
	 * observation: the server has no tracing, and for meters alone the observation would
	 * only repeat {@code lock.acquisitions} at several times its cost.
	 */
	@Bean
	NamespaceLocks namespaceLocks(LockStore store, ApiClients clients, LockServerProperties properties,
			LockProperties lockProperties, ObjectProvider<LockMeters> lockMeters) {
		LockMeters meters = lockMeters.getIfUnique();
		return new NamespaceLocks(clients, properties, lockProperties.getKeyPrefix(), (keyPrefix) -> {
			LockTemplate template = new LockTemplate(store, keyPrefix);
			template.setLossMargin(lockProperties.getLossMargin());
			if (meters != null) {
				template.addListener(meters);
			}
			return template;
		});
	}

	@Bean
	WaitLimiter waitLimiter(LockServerProperties properties) {
		return new WaitLimiter(properties.getMaxWaits());
	}

	@Bean
	LockQuotas lockQuotas() {
		return new LockQuotas(System::nanoTime);
	}

	@Bean
	LockResource lockResource(NamespaceLocks locks, LockServerProperties properties, WaitLimiter waits,
			LockQuotas quotas, LockProperties lockProperties) {
		return new LockResource(locks, properties, waits, quotas, lockProperties.getLossMargin());
	}

	/**
	 * The lock resource's servlet, on {@code /v1/namespaces/*}: a waiting acquisition is
	 * answered asynchronously, given its whole wait and the store's time to answer before
	 * it times out.
	 */
	@Bean
	ServletRegistrationBean<LockServlet> lockServlet(LockResource resource, LockExceptionHandler lockExceptions,
			LockServerProperties properties, HangUpCheck hangUpCheck) {
		LockServlet servlet = new LockServlet(resource, lockExceptions,
				properties.getMaxWait().plus(ASYNC_MARGIN).toMillis(), hangUpCheck);
		ServletRegistrationBean<LockServlet> registration = new ServletRegistrationBean<>(servlet, LockServlet.MAPPING);
		registration.setName("lockServlet");
		registration.setAsyncSupported(true);
		registration.setLoadOnStartup(1);
		return registration;
	}

	/**
	 * Times the lock servlet's requests as {@code http.server.requests}, ahead of the API
	 * key check, so that refused requests are timed too.
	 */
	@Bean
	FilterRegistrationBean<LockApiRequestMeters> lockApiRequestMeters(MeterRegistry registry, Environment environment) {
		String name = environment.getProperty("management.observations.http.server.requests.name",
				"http.server.requests");
		FilterRegistrationBean<LockApiRequestMeters> registration = new FilterRegistrationBean<>(
				new LockApiRequestMeters(registry, name));
		registration.setUrlPatterns(List.of(LockServlet.MAPPING));
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
		return registration;
	}

	@Bean
	HangUpCheck hangUpCheck() {
		return new HangUpCheck(HANG_UP_CHECK_INTERVAL);
	}

	@Bean
	FilterRegistrationBean<ApiKeyFilter> apiKeyFilter(ApiClients clients, LockServerProperties properties) {
		RateLimiter rateLimiter = new RateLimiter(System::nanoTime);
		FilterRegistrationBean<ApiKeyFilter> registration = new FilterRegistrationBean<>(
				new ApiKeyFilter(clients, rateLimiter));
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
		return registration;
	}

	/**
	 * Let an encoded {@code /} ({@code %2F}) through in a key: Tomcat refuses it by
	 * default. The controller decodes the key itself, one path segment.
	 */
	@Bean
	TomcatConnectorCustomizer encodedSlashesInKeys() {
		return (connector) -> connector.setEncodedSolidusHandling(EncodedSolidusHandling.PASS_THROUGH.getValue());
	}

	/**
	 * Errors that Tomcat answers itself, before the application (a URI that is not valid
	 * UTF-8, a malformed header), are problem responses too.
	 */
	@Bean
	TomcatContextCustomizer problemErrorReports() {
		return (context) -> {
			if (context.getParent() instanceof StandardHost host) {
				host.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
			}
		};
	}

	private static void check(LockServerProperties properties) {
		positive("lock.server.default-ttl", properties.getDefaultTtl());
		positive("lock.server.max-ttl", properties.getMaxTtl());
		if (properties.getDefaultTtl().compareTo(properties.getMaxTtl()) > 0) {
			throw new IllegalStateException("lock.server.default-ttl (" + properties.getDefaultTtl()
					+ ") must not exceed lock.server.max-ttl (" + properties.getMaxTtl() + ")");
		}
		if (properties.getMaxWait() == null || properties.getMaxWait().isNegative()) {
			throw new IllegalStateException("lock.server.max-wait must be zero or positive");
		}
		if (properties.getMaxKeyBytes() < 1 || properties.getMaxKeyBytes() > 1024) {
			throw new IllegalStateException("lock.server.max-key-bytes must be between 1 and 1024");
		}
		if (properties.getMaxBodyBytes() < 64) {
			throw new IllegalStateException("lock.server.max-body-bytes must be at least 64");
		}
		if (properties.getMaxWaits() < 0 || properties.getMaxWaitsPerClient() < 0) {
			throw new IllegalStateException("lock.server.max-waits and lock.server.max-waits-per-client must be 0 "
					+ "(no waiting) or positive");
		}
		if (properties.getMaxLocksPerClient() < 1) {
			throw new IllegalStateException("lock.server.max-locks-per-client must be at least 1");
		}
		if (properties.getRateLimit().getRequestsPerSecond() < 0) {
			throw new IllegalStateException("lock.server.rate-limit.requests-per-second must be 0 (off) or positive");
		}
		if (properties.getRateLimit().getBurst() < 1) {
			throw new IllegalStateException("lock.server.rate-limit.burst must be at least 1");
		}
		properties.getNamespaces().forEach((namespace, settings) -> {
			if (!ApiClients.NAMESPACE.matcher(namespace).matches()) {
				throw new IllegalStateException("lock.server.namespaces." + namespace
						+ " must be named with 1 to 64 letters, digits, '.', '_' or '-'");
			}
		});
	}

	private static void positive(String property, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new IllegalStateException(property + " must be positive, was " + value);
		}
	}

}
