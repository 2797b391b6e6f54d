/**
 * The examples of the adapter pages: Spring Integration's {@code LockRegistry},
 * ShedLock's {@code LockProvider} and {@code java.util.concurrent.locks.Lock}.
 */
package dev.lockstarter.docs.adapters;
