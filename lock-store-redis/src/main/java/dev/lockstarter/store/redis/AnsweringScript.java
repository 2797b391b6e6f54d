package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import org.jspecify.annotations.Nullable;

/**
 * A script sent through Lettuce without blocking the sending thread, by {@code EVALSHA}
 * and then, if Redis does not know it, by {@code EVAL}, until it is answered or its time
 * is up. The answer completes on Lettuce's I/O thread; when no answer has come within the
 * timeout, it fails with a {@link TimeoutException} on the given timer (which adds a task
 * to a queue, where a scheduled executor would wake a thread for every command), and the
 * command is cancelled. Only touched when Lettuce is on the classpath.
 *
 * @param <T> the script's answer
 */
final class AnsweringScript<T> {

	private final CompletableFuture<T> answer = new CompletableFuture<>();

	private final RedisClusterAsyncCommands<byte[], byte[]> commands;

	private final ScriptCall<T> call;

	/** The command whose answer is awaited. */
	private volatile @Nullable RedisFuture<T> sent;

	AnsweringScript(RedisClusterAsyncCommands<byte[], byte[]> commands, ScriptCall<T> call) {
		this.commands = commands;
		this.call = call;
	}

	/**
	 * Send the script.
	 * @param timer the timer that ends the wait
	 * @param timeout how long to wait for the answer
	 * @return the answer
	 */
	CompletableFuture<T> send(Timer timer, Duration timeout) {
		try {
			Timeout expiry = timer.newTimeout((expired) -> expire(), timeout.toNanos(), TimeUnit.NANOSECONDS);
			this.answer.whenComplete((reply, failure) -> expiry.cancel());
			RedisFuture<T> first = LettuceScripts.evalsha(this.commands, this.call);
			this.sent = first;
			first.whenComplete(this::evalshaAnswered);
		}
		catch (RuntimeException ex) {
			this.answer.completeExceptionally(ex);
		}
		return this.answer;
	}

	private void evalshaAnswered(@Nullable T reply, @Nullable Throwable failure) {
		if (!(failure instanceof RedisNoScriptException) || this.answer.isDone()) {
			complete(reply, failure);
			return;
		}
		try {
			RedisFuture<T> retry = LettuceScripts.eval(this.commands, this.call);
			this.sent = retry;
			retry.whenComplete(this::complete);
		}
		catch (RuntimeException ex) {
			this.answer.completeExceptionally(ex);
		}
	}

	private void complete(@Nullable T reply, @Nullable Throwable failure) {
		if (failure != null) {
			this.answer.completeExceptionally(failure);
		}
		else {
			this.answer.complete(reply);
		}
	}

	private void expire() {
		if (this.answer.completeExceptionally(new TimeoutException())) {
			RedisFuture<T> awaited = this.sent;
			if (awaited != null) {
				awaited.cancel(false);
			}
		}
	}

}
