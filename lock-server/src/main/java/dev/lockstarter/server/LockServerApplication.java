package dev.lockstarter.server;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * The lock server: {@code java -jar lock-server.jar}. It keeps locks in the store that
 * {@code lock.store} names (in memory by default), so that clients over HTTP and
 * {@code @ExclusiveRequest} methods of JVM applications on the same store exclude each
 * other.
 *
 * @since 0.1.0
 */
@SpringBootApplication
@EnableConfigurationProperties(LockServerProperties.class)
public class LockServerApplication {

	/**
	 * Start the server.
	 * @param args the command line
	 */
	public static void main(String[] args) {
		SpringApplication.run(LockServerApplication.class, args);
	}

}
