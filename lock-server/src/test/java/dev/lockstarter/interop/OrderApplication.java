package dev.lockstarter.interop;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A JVM application with an {@code @ExclusiveRequest} method, on the same Redis as the
 * lock server. It lives outside {@code dev.lockstarter.server}, which the server scans.
 */
@SpringBootApplication
public class OrderApplication {

}
