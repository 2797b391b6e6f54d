/**
 * Maps lock exceptions to RFC 9457 problem responses in Spring MVC applications.
 */
@NullMarked
package dev.lockstarter.web;

import org.jspecify.annotations.NullMarked;
