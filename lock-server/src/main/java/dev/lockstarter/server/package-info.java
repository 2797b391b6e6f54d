/**
 * The lock server: distributed locks over HTTP for clients that are not on the JVM.
 */
@NullMarked
package dev.lockstarter.server;

import org.jspecify.annotations.NullMarked;
