/**
 * Micrometer observations of locking: {@code lock.acquire} around an acquisition and its
 * wait, {@code lock.request} around a whole
 * {@link dev.lockstarter.annotation.ExclusiveRequest} call, with conventions users can
 * replace.
 */
@NullMarked
package dev.lockstarter.observation;

import org.jspecify.annotations.NullMarked;
