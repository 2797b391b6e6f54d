package dev.lockstarter.autoconfigure;

import dev.lockstarter.web.LockExceptionHandler;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ProblemDetail;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the problem responses for lock exceptions in servlet web
 * applications.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = LockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "lock.enabled", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ DispatcherServlet.class, ProblemDetail.class })
public final class LockWebAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockExceptionHandler lockExceptionHandler(LockProperties properties) {
		return new LockExceptionHandler(properties.getWeb().getConflictStatus());
	}

}
