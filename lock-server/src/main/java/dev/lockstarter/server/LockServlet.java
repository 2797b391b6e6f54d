package dev.lockstarter.server;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import dev.lockstarter.web.LockExceptionHandler;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * Carries {@link LockResource} over HTTP, as a servlet of its own on
 * {@code /v1/namespaces/*}, behind the API key filter: each request takes one pass
 * through Tomcat's filters to this servlet, which reads nothing but what the resource
 * asks for, and writes its answer, a JSON body or a problem response, itself.
 * <p>
 * An answer that is ready when the resource returns (every call but an acquisition that
 * waits) is written on the request thread. One that is not starts asynchronous
 * processing: the request thread goes back to Tomcat, and the answer is written on one of
 * Tomcat's threads when it completes. A request that times out (its wait and the store's
 * margin spent), whose processing Tomcat ends with an error, or whose client hangs up,
 * cancels its acquisition.
 * <p>
 * {@link LockApiRequestMeters} times its requests.
 *
 * @since 0.1.0
 */
class LockServlet extends HttpServlet {

	static final String MAPPING = ApiKeyFilter.PREFIX + "*";

	static final String PATH_PATTERN = ApiKeyFilter.PREFIX + "{namespace}/locks/{key}";

	private static final String ALLOW = "GET, HEAD, POST, PUT, DELETE, OPTIONS";

	private static final Log logger = LogFactory.getLog(LockServlet.class);

	private final transient LockResource resource;

	private final transient LockExceptionHandler lockExceptions;

	private final long asyncTimeoutMillis;

	private final transient HangUpCheck hangUpCheck;

	LockServlet(LockResource resource, LockExceptionHandler lockExceptions, long asyncTimeoutMillis,
			HangUpCheck hangUpCheck) {
		this.resource = resource;
		this.lockExceptions = lockExceptions;
		this.asyncTimeoutMillis = asyncTimeoutMillis;
		this.hangUpCheck = hangUpCheck;
	}

	@Override
	protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
		try {
			String method = request.getMethod();
			if (!method.equals("OPTIONS")) {
				checkAccept(request);
			}
			switch (method) {
				case "POST" -> acquire(request, response);
				case "PUT" -> write(this.resource.renew(request), request, response);
				case "DELETE" -> write(this.resource.release(request), request, response);
				case "GET", "HEAD" -> write(this.resource.status(request), request, response);
				case "OPTIONS" -> {
					response.setHeader(HttpHeaders.ALLOW, ALLOW);
					response.setStatus(HttpStatus.OK.value());
				}
				default -> {
					response.setHeader(HttpHeaders.ALLOW, ALLOW);
					throw new LockRequestException(HttpStatus.METHOD_NOT_ALLOWED, "method-not-allowed",
							"Method not allowed", "A lock answers " + ALLOW + ", not " + method);
				}
			}
		}
		catch (RuntimeException ex) {
			writeFailure(ex, request, response);
		}
	}

	private void acquire(HttpServletRequest request, HttpServletResponse response) throws IOException {
		Mono<LockAnswer<LockResource.AcquiredLock>> answer = this.resource.acquire(request);
		CompletableFuture<LockAnswer<LockResource.AcquiredLock>> answered = answer.toFuture();
		if (answered.isDone()) {
			try {
				write(answered.join(), request, response);
			}
			catch (CompletionException ex) {
				throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
			}
			return;
		}
		ApiClients.ApiClient client = (ApiClients.ApiClient) request.getAttribute(ApiKeyFilter.CLIENT);
		AsyncContext async = request.startAsync(request, response);
		async.setTimeout(this.asyncTimeoutMillis);
		Waiting waiting = new Waiting(answered, async, request, client);
		async.addListener(waiting);
		waiting.watchConnection();
		answered.whenComplete(waiting::answered);
	}

	/** Write an answer that came after the request thread left, on a Tomcat thread. */
	private void answerLater(AsyncContext async, @Nullable LockAnswer<?> answer, @Nullable Throwable ex) {
		HttpServletRequest request = (HttpServletRequest) async.getRequest();
		HttpServletResponse response = (HttpServletResponse) async.getResponse();
		try {
			if (ex != null) {
				writeFailure((ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex),
						request, response);
			}
			else if (answer != null) {
				write(answer, request, response);
			}
		}
		catch (IOException | RuntimeException failure) {
			logger.debug("The answer to " + request.getRequestURI() + " could not be written", failure);
		}
		finally {
			async.complete();
		}
	}

	private void write(LockAnswer<?> answer, HttpServletRequest request, HttpServletResponse response)
			throws IOException {
		response.setStatus(answer.status());
		if (answer.location() != null) {
			response.setHeader(HttpHeaders.LOCATION, answer.location());
		}
		LockAnswer.Body body = answer.body();
		if (body != null) {
			byte[] bytes = body.json();
			response.setContentType(MediaType.APPLICATION_JSON_VALUE);
			response.setContentLength(bytes.length);
			if (!request.getMethod().equals("HEAD")) {
				response.getOutputStream().write(bytes);
			}
		}
	}

	/**
	 * Answer a failure with a problem response: the resource's refusals, the starter's
	 * answer to a lock store failure (503), and a 500 that tells nothing for anything
	 * else (the log has it).
	 */
	private void writeFailure(RuntimeException ex, HttpServletRequest request, HttpServletResponse response)
			throws IOException {
		if (ex instanceof LockRequestException refusal) {
			ProblemResponses.write(refusal, request, response);
			return;
		}
		ResponseEntity<ProblemDetail> problem = this.lockExceptions.handleException(ex);
		if (problem == null) {
			logger.error("Request " + request.getMethod() + " " + request.getRequestURI() + " failed", ex);
			problem = ProblemResponses.problem(new LockRequestException(HttpStatus.INTERNAL_SERVER_ERROR,
					"server-error", "Server error", "The server failed to handle the request"), request);
		}
		ProblemResponses.write(problem, response);
	}

	/**
	 * Refuse an {@code Accept} header that cannot be parsed (400), or that accepts no
	 * JSON (406): the answers are JSON, and problems {@code application/problem+json}.
	 */
	private static void checkAccept(HttpServletRequest request) {
		String accept = request.getHeader(HttpHeaders.ACCEPT);
		if (accept == null) {
			return;
		}
		List<MediaType> accepted;
		try {
			accepted = MediaType.parseMediaTypes(accept);
		}
		catch (InvalidMediaTypeException ex) {
			throw LockRequestException.badRequest("The 'Accept' header cannot be parsed");
		}
		if (!accepted.isEmpty() && accepted.stream()
			.noneMatch((type) -> type.isCompatibleWith(MediaType.APPLICATION_JSON)
					|| type.isCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))) {
			throw new LockRequestException(HttpStatus.NOT_ACCEPTABLE, "not-acceptable", "Not acceptable",
					"The answers are application/json, and problems application/problem+json");
		}
	}

	/**
	 * A waiting acquisition's request, which ends once, whichever comes first: the
	 * acquisition's answer, written on a Tomcat thread; its timeout, answered with a 503;
	 * an error that Tomcat reports; or the client's hang-up, found by reading the
	 * connection without blocking at each {@link HangUpCheck} (any byte or the end of the
	 * stream: a client sends nothing while its request waits). The last three cancel the
	 * acquisition, and a lock that it was granted all the same is released, since no
	 * client will learn of it.
	 */
	private final class Waiting implements AsyncListener, ReadListener {

		private final CompletableFuture<LockAnswer<LockResource.AcquiredLock>> answer;

		private final AsyncContext async;

		private final HttpServletRequest request;

		private final ApiClients.@Nullable ApiClient client;

		/** Whether the request has ended; guarded by this. */
		private boolean ended;

		private @Nullable ScheduledFuture<?> check;

		Waiting(CompletableFuture<LockAnswer<LockResource.AcquiredLock>> answer, AsyncContext async,
				HttpServletRequest request, ApiClients.@Nullable ApiClient client) {
			this.answer = answer;
			this.async = async;
			this.request = request;
			this.client = client;
		}

		/**
		 * Read the connection without blocking from now on, and check it for a hang-up; a
		 * request whose connection cannot be read so waits unwatched.
		 */
		void watchConnection() {
			ServletInputStream in;
			try {
				in = this.request.getInputStream();
				in.setReadListener(this);
			}
			catch (IOException | IllegalStateException | UnsupportedOperationException ex) {
				logger.debug("The connection of " + this.request.getRequestURI() + " cannot be watched", ex);
				return;
			}
			ScheduledFuture<?> check = LockServlet.this.hangUpCheck.every(() -> checkConnection(in));
			synchronized (this) {
				if (this.ended) {
					check.cancel(false);
				}
				else {
					this.check = check;
				}
			}
		}

		/** The acquisition's answer, or its failure. */
		void answered(@Nullable LockAnswer<LockResource.AcquiredLock> answer, @Nullable Throwable ex) {
			if (end()) {
				this.async.start(() -> answerLater(this.async, answer, ex));
			}
			else {
				LockResource.AcquiredLock granted = (answer != null) ? answer.body() : null;
				if (granted != null && this.client != null) {
					LockServlet.this.resource.abandon(granted, this.client);
				}
			}
		}

		private void checkConnection(ServletInputStream in) {
			boolean hungUp;
			synchronized (this) {
				if (this.ended) {
					return;
				}
				try {
					hungUp = in.available() > 0;
				}
				catch (IOException | RuntimeException ex) {
					hungUp = true;
				}
			}
			if (hungUp) {
				logger.debug("The client of " + this.request.getRequestURI() + " hung up while it waited");
				cancel(null);
			}
		}

		/** End the request unless it has ended: true for the one caller that ends it. */
		private synchronized boolean end() {
			if (this.ended) {
				return false;
			}
			this.ended = true;
			if (this.check != null) {
				this.check.cancel(false);
			}
			return true;
		}

		/**
		 * End the request without the acquisition's answer, writing a problem instead if
		 * one is given.
		 */
		private void cancel(@Nullable AsyncEvent timeout) {
			if (!end()) {
				return;
			}
			this.answer.cancel(false);
			if (timeout != null) {
				try {
					writeFailure(
							new LockRequestException(HttpStatus.SERVICE_UNAVAILABLE, "wait-timed-out", "Wait timed out",
									"The store did not answer within the wait and the server's margin", Map.of(), 1),
							this.request, (HttpServletResponse) timeout.getSuppliedResponse());
				}
				catch (IOException ex) {
					logger.debug("The timeout of " + this.request.getRequestURI() + " could not be answered", ex);
				}
			}
			this.async.complete();
		}

		@Override
		public void onTimeout(AsyncEvent event) {
			cancel(event);
		}

		@Override
		public void onError(AsyncEvent event) {
			// Tomcat ends the request itself: no answer is written, and the wait ends
			if (end()) {
				this.answer.cancel(false);
			}
		}

		@Override
		public void onError(Throwable ex) {
			cancel(null);
		}

		@Override
		public void onDataAvailable() {
			// Read by the check
		}

		@Override
		public void onAllDataRead() {
			// The body was read before the wait
		}

		@Override
		public void onComplete(AsyncEvent event) {
		}

		@Override
		public void onStartAsync(AsyncEvent event) {
		}

	}

}
