package dev.lockstarter.sample;

import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.web.servlet.config.annotation.CorsRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Lets the demo page served by one instance send requests to a second instance on this
 * machine, so that the page can show the lock holding across servers. Only pages from
 * {@code localhost} and {@code 127.0.0.1} are allowed, on any port, and only for the
 * sample's API.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
public class DemoPageCorsConfiguration implements WebMvcConfigurer {

	@Override
	public void addCorsMappings(CorsRegistry registry) {
		registry.addMapping("/api/**")
			.allowedOriginPatterns("http://localhost:[*]", "http://127.0.0.1:[*]")
			.allowedMethods("GET", "POST")
			.exposedHeaders(HttpHeaders.LOCATION, HttpHeaders.RETRY_AFTER);
	}

}
