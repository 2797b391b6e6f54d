/**
 * Spring Boot auto-configuration for distributed request locking.
 */
@NullMarked
package dev.lockstarter.autoconfigure;

import org.jspecify.annotations.NullMarked;
