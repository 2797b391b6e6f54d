/**
 * The AOP machinery behind {@link dev.lockstarter.annotation.ExclusiveRequest}:
 * per-method metadata parsed once and cached, the method interceptor and its advisor, and
 * a startup validator for every annotated method.
 */
@NullMarked
package dev.lockstarter.interceptor;

import org.jspecify.annotations.NullMarked;
