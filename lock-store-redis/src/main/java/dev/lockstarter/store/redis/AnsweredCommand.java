package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import org.jspecify.annotations.Nullable;

/**
 * A command sent through Lettuce without blocking the sending thread, until it is
 * answered or its time is up: a script by {@code EVALSHA} and then, if Redis does not
 * know it, by {@code EVAL}; or a plain command. The answer completes on Lettuce's I/O
 * thread; when no answer has come within the timeout, it fails with a
 * {@link TimeoutException} on the given timer (which adds a task to a queue, where a
 * scheduled executor, Reactor's {@code timeout} operator's included, would wake a thread
 * for every command), and the command is cancelled, as it is when the answer is
 * cancelled. Only touched when Lettuce is on the classpath.
 *
 * @param <T> the command's answer
 */
final class AnsweredCommand<T> {

	private final CompletableFuture<T> answer = new CompletableFuture<>();

	private final Supplier<RedisFuture<T>> command;

	/**
	 * Sends the command again when Redis answered {@code NOSCRIPT}, if it is a script.
	 */
	private final @Nullable Supplier<RedisFuture<T>> unknownScript;

	/** The command whose answer is awaited. */
	private volatile @Nullable RedisFuture<T> sent;

	private AnsweredCommand(Supplier<RedisFuture<T>> command, @Nullable Supplier<RedisFuture<T>> unknownScript) {
		this.command = command;
		this.unknownScript = unknownScript;
	}

	/**
	 * A script, sent by its SHA-1, then by its text if Redis does not know it.
	 * @param <T> the script's answer
	 * @param commands the commands to send it with
	 * @param call the script and its arguments
	 * @return the command, not sent yet
	 */
	static <T> AnsweredCommand<T> script(RedisClusterAsyncCommands<byte[], byte[]> commands, ScriptCall<T> call) {
		return new AnsweredCommand<>(() -> LettuceScripts.evalsha(commands, call),
				() -> LettuceScripts.eval(commands, call));
	}

	/**
	 * A command sent once.
	 * @param <T> the command's answer
	 * @param command sends it
	 * @return the command, not sent yet
	 */
	static <T> AnsweredCommand<T> of(Supplier<RedisFuture<T>> command) {
		return new AnsweredCommand<>(command, null);
	}

	/**
	 * Send the command.
	 * @param timer the timer that ends the wait
	 * @param timeout how long to wait for the answer
	 * @return the answer; cancelling it cancels the command
	 */
	CompletableFuture<T> send(Timer timer, Duration timeout) {
		try {
			Timeout expiry = timer.newTimeout((expired) -> expire(), timeout.toNanos(), TimeUnit.NANOSECONDS);
			this.answer.whenComplete((reply, failure) -> {
				expiry.cancel();
				if (this.answer.isCancelled()) {
					cancelSent();
				}
			});
			sent(this.command.get()).whenComplete(this::answered);
		}
		catch (RuntimeException ex) {
			this.answer.completeExceptionally(ex);
		}
		return this.answer;
	}

	private RedisFuture<T> sent(RedisFuture<T> command) {
		this.sent = command;
		// Cancelled while it was being sent
		if (this.answer.isCancelled()) {
			command.cancel(false);
		}
		return command;
	}

	private void answered(@Nullable T reply, @Nullable Throwable failure) {
		Supplier<RedisFuture<T>> unknownScript = this.unknownScript;
		if (unknownScript == null || !(failure instanceof RedisNoScriptException) || this.answer.isDone()) {
			complete(reply, failure);
			return;
		}
		try {
			sent(unknownScript.get()).whenComplete(this::complete);
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
			cancelSent();
		}
	}

	private void cancelSent() {
		RedisFuture<T> awaited = this.sent;
		if (awaited != null) {
			awaited.cancel(false);
		}
	}

}
