package dev.lockstarter.sample.export;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;

/**
 * The properties of the report exports, which run unless {@code sample.exports.enabled}
 * is {@code false}.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "sample.exports.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ExportProperties.class)
public class ExportConfiguration {

}
