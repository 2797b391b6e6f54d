/**
 * Test support for the lock starter: a store contract test kit and JUnit 5 extensions
 * that start real lock store servers.
 */
@NullMarked
package dev.lockstarter.test;

import org.jspecify.annotations.NullMarked;
