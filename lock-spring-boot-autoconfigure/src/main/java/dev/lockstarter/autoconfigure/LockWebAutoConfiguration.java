package dev.lockstarter.autoconfigure;

import dev.lockstarter.core.Internal;
import dev.lockstarter.web.LockExceptionHandler;
import dev.lockstarter.web.LockProblemWebExceptionHandler;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ProblemDetail;
import org.springframework.http.codec.ServerCodecConfigurer;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the problem responses for lock exceptions in web applications:
 * servlet (Spring MVC) and reactive (Spring WebFlux). Both stacks use the one
 * {@link LockExceptionHandler}, whose {@code @ExceptionHandler} methods each stack's
 * annotated controllers consult, so the responses are the same whichever stack serves
 * them. In WebFlux, a {@link LockProblemWebExceptionHandler} answers the same for
 * functional endpoints.
 *
 * @since 0.1.0
 */
@Internal
@AutoConfiguration(after = LockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "lock.enabled", matchIfMissing = true)
@ConditionalOnClass({ LockExceptionHandler.class, ProblemDetail.class })
public final class LockWebAutoConfiguration {

	static LockExceptionHandler lockExceptionHandler(LockProperties properties) {
		LockExceptionHandler handler = new LockExceptionHandler(properties.getWeb().getConflictStatus());
		handler.setLeaseLostStatus(properties.getWeb().getLeaseLostStatus());
		return handler;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
	static class ServletLockWebConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LockExceptionHandler lockExceptionHandler(LockProperties properties) {
			return LockWebAutoConfiguration.lockExceptionHandler(properties);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	@ConditionalOnClass(name = "org.springframework.web.reactive.DispatcherHandler")
	static class ReactiveLockWebConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LockExceptionHandler lockExceptionHandler(LockProperties properties) {
			return LockWebAutoConfiguration.lockExceptionHandler(properties);
		}

		/**
		 * The problem responses of functional endpoints, whose errors reach no
		 * {@code @ControllerAdvice}: written with the application's codecs, or the
		 * defaults when it has none.
		 */
		@Bean
		@ConditionalOnMissingBean
		LockProblemWebExceptionHandler lockProblemWebExceptionHandler(LockExceptionHandler problems,
				ObjectProvider<ServerCodecConfigurer> codecs) {
			return new LockProblemWebExceptionHandler(problems,
					codecs.getIfAvailable(ServerCodecConfigurer::create).getWriters());
		}

	}

}
