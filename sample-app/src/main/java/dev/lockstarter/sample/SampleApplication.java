package dev.lockstarter.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * A user registration service that re-enacts "a Web API lock across several servers with
 * Redis SETNX": {@code POST /api/users} registers a user under a lock on the user name,
 * {@code POST /api/unsafe/users} does the same without the lock.
 * <p>
 * By default everything lives in this process (in-memory lock store and users). The
 * {@code redis} profile moves both into Redis, so that several instances on different
 * ports share the locks and the users.
 *
 * @since 0.1.0
 */
@SpringBootApplication
@EnableConfigurationProperties(SampleProperties.class)
public class SampleApplication {

	/**
	 * Start the application.
	 * @param args the command line arguments
	 */
	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
