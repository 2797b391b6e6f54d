package dev.lockstarter.server;

import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

/**
 * Times the lock API's requests, in front of every other filter of the lock servlet, as
 * Spring MVC's observation filter times the server's other paths: a timer named as
 * {@code management.observations.http.server.requests.name} says
 * ({@code http.server.requests} by default), with the tags that the observation gives it
 * ({@code method}, {@code status}, {@code outcome}, {@code exception}, {@code error}, and
 * {@code uri}, the resource's path pattern), and {@code <name>.active} for the requests
 * that wait. Each timer is looked up once for its method and status, not built again for
 * every request as an observation's is.
 *
 * @since 0.1.0
 */
final class LockApiRequestMeters implements Filter {

	private static final String NONE = "none";

	private final MeterRegistry registry;

	private final Clock clock;

	private final String name;

	private final ConcurrentMap<MethodAndStatus, Timer> timers = new ConcurrentHashMap<>();

	private final LongTaskTimer waiting;

	LockApiRequestMeters(MeterRegistry registry, String name) {
		this.registry = registry;
		this.clock = registry.config().clock();
		this.name = name;
		this.waiting = LongTaskTimer.builder(name + ".active")
			.tags(Tags.of("exception", NONE, "method", "POST", "outcome", "SUCCESS", "status", "200", "uri",
					LockServlet.PATH_PATTERN))
			.register(registry);
	}

	@Override
	public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		long startedAt = this.clock.monotonicTime();
		try {
			chain.doFilter(request, response);
		}
		catch (IOException | ServletException | RuntimeException | Error ex) {
			record((HttpServletRequest) request, (HttpServletResponse) response, startedAt,
					(ex instanceof ServletException && ex.getCause() != null) ? ex.getCause() : ex);
			throw ex;
		}
		if (request.isAsyncStarted()) {
			request.getAsyncContext()
				.addListener(new Waiting((HttpServletRequest) request, startedAt, this.waiting.start()));
		}
		else {
			record((HttpServletRequest) request, (HttpServletResponse) response, startedAt, null);
		}
	}

	private void record(HttpServletRequest request, HttpServletResponse response, long startedAt,
			@Nullable Throwable failure) {
		long duration = this.clock.monotonicTime() - startedAt;
		if (failure != null) {
			String exception = failure.getClass().getSimpleName();
			Timer.builder(this.name)
				.tags(tags(method(request), 500, exception))
				.tag("error", exception)
				.register(this.registry)
				.record(duration, TimeUnit.NANOSECONDS);
			return;
		}
		this.timers
			.computeIfAbsent(new MethodAndStatus(method(request), response.getStatus()),
					(key) -> Timer.builder(this.name)
						.tags(tags(key.method(), key.status(), NONE))
						.tag("error", NONE)
						.register(this.registry))
			.record(duration, TimeUnit.NANOSECONDS);
	}

	private static Tags tags(String method, int status, String exception) {
		return Tags.of("exception", exception, "method", method, "outcome", outcome(status), "status",
				Integer.toString(status), "uri", LockServlet.PATH_PATTERN);
	}

	/**
	 * The method, or {@code UNKNOWN} for one that HTTP does not define, as Spring tags
	 * it.
	 */
	private static String method(HttpServletRequest request) {
		String method = request.getMethod();
		return switch (method) {
			case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE" -> method;
			default -> "UNKNOWN";
		};
	}

	/** The outcome that Spring's convention gives a status. */
	private static String outcome(int status) {
		return switch (status / 100) {
			case 1 -> "INFORMATIONAL";
			case 2 -> "SUCCESS";
			case 3 -> "REDIRECTION";
			case 4 -> "CLIENT_ERROR";
			case 5 -> "SERVER_ERROR";
			default -> "UNKNOWN";
		};
	}

	private record MethodAndStatus(String method, int status) {
	}

	/** A request that waits: timed, and active, until it completes. */
	private final class Waiting implements AsyncListener {

		private final HttpServletRequest request;

		private final long startedAt;

		private final LongTaskTimer.Sample active;

		Waiting(HttpServletRequest request, long startedAt, LongTaskTimer.Sample active) {
			this.request = request;
			this.startedAt = startedAt;
			this.active = active;
		}

		@Override
		public void onComplete(AsyncEvent event) {
			this.active.stop();
			record(this.request, (HttpServletResponse) event.getSuppliedResponse(), this.startedAt, null);
		}

		@Override
		public void onTimeout(AsyncEvent event) {
		}

		@Override
		public void onError(AsyncEvent event) {
		}

		@Override
		public void onStartAsync(AsyncEvent event) {
		}

	}

}
