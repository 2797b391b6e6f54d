/**
 * The AOP machinery behind the lock annotations
 * ({@link dev.lockstarter.annotation.ExclusiveRequest},
 * {@link dev.lockstarter.annotation.ExclusiveJob}).
 * <p>
 * Declarations: one {@link dev.lockstarter.interceptor.LockAttributeSource} per
 * annotation finds a method's declaration (most specific method first, then the
 * interface's or superclass's), has the annotation's parser turn it into a
 * {@link dev.lockstarter.interceptor.LockAttribute}, and caches it per method and target
 * class; a {@link dev.lockstarter.interceptor.LockMethodValidator} parses every
 * declaration at startup, and an invalid one is an
 * {@link dev.lockstarter.interceptor.InvalidLockDeclarationException}.
 * <p>
 * Calls: a {@link dev.lockstarter.interceptor.LockAdvisor} applies each annotation's
 * interceptor. {@link dev.lockstarter.interceptor.ExclusiveRequestInterceptor} is thin
 * over {@link dev.lockstarter.interceptor.ExclusiveRequestAspectSupport}, which handles
 * values and {@code CompletionStage}s itself and hands single-flight, reactive methods
 * (only with Reactor present) and store failures to types of their own;
 * {@link dev.lockstarter.interceptor.ExclusiveJobInterceptor} runs a job on the one
 * instance that takes its lock. Both run the method within its lease, which
 * {@link dev.lockstarter.interceptor.ExclusiveRequestContext} exposes, and
 * {@link dev.lockstarter.interceptor.ReactiveExclusiveRequestContext} to a reactive
 * method's publisher.
 */
@NullMarked
package dev.lockstarter.interceptor;

import org.jspecify.annotations.NullMarked;
