package dev.lockstarter.server;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Guards every path under {@code /v1/} but the OpenAPI document, as Spring MVC routes it
 * (decoded, without path parameters) and as it was sent: the
 * {@code Authorization: Bearer} API key must belong to a configured client (else 401),
 * before anything else is looked at. Then the path as sent must be exactly
 * {@code /v1/namespaces/<namespace>/locks/<key>}, with no path parameter or
 * percent-encoding outside the key (else 400), its namespace must be the client's (else
 * 403, whether or not that namespace exists, so a client learns nothing of others), and
 * the client's rate limit must allow the request (else 429 with {@code Retry-After}). The
 * authenticated client is left in the request attribute {@link #CLIENT}, and the path in
 * {@link #LOCK_PATH}.
 *
 * @since 0.1.0
 */
class ApiKeyFilter extends OncePerRequestFilter {

	static final String CLIENT = ApiKeyFilter.class.getName() + ".client";

	static final String LOCK_PATH = ApiKeyFilter.class.getName() + ".path";

	static final String PREFIX = "/v1/namespaces/";

	private static final String LOCKS = "/locks/";

	private static final String OPEN_API = "/v1/openapi.yaml";

	private static final String BEARER = "Bearer ";

	private final ApiClients clients;

	private final RateLimiter rateLimiter;

	ApiKeyFilter(ApiClients clients, RateLimiter rateLimiter) {
		this.clients = clients;
		this.rateLimiter = rateLimiter;
	}

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		String routed = request.getServletPath() + ((request.getPathInfo() != null) ? request.getPathInfo() : "");
		if (routed.equals(OPEN_API)) {
			return true;
		}
		return !routed.startsWith("/v1/") && !request.getRequestURI().startsWith("/v1");
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
		ApiClients.ApiClient client = (authorization != null
				&& authorization.regionMatches(true, 0, BEARER, 0, BEARER.length()))
						? this.clients.authenticate(authorization.substring(BEARER.length()).trim()) : null;
		if (client == null) {
			response.setHeader(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"lock-server\"");
			ProblemResponses.write(new LockRequestException(HttpStatus.UNAUTHORIZED, "unauthenticated",
					"Unauthenticated", "Send a valid API key as 'Authorization: Bearer <key>'"), request, response);
			return;
		}
		RawLockPath path = RawLockPath.parse(request.getRequestURI(), client.namespace());
		if (path == null) {
			ProblemResponses.write(LockRequestException.badRequest("The path must be " + PREFIX + "<namespace>" + LOCKS
					+ "<key>, with no path parameter or percent-encoding outside the key"), request, response);
			return;
		}
		if (!path.namespace().equals(client.namespace())) {
			ProblemResponses.write(new LockRequestException(HttpStatus.FORBIDDEN, "namespace-forbidden",
					"Namespace forbidden", "This API key is not allowed in this namespace"), request, response);
			return;
		}
		long waitNanos = this.rateLimiter.take(client);
		if (waitNanos > 0) {
			long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(waitNanos + TimeUnit.SECONDS.toNanos(1) - 1));
			ProblemResponses.write(new LockRequestException(HttpStatus.TOO_MANY_REQUESTS, "rate-limited",
					"Too many requests", "This API key's rate limit is spent; retry after " + seconds + " s",
					java.util.Map.of(), seconds), request, response);
			return;
		}
		request.setAttribute(CLIENT, client);
		request.setAttribute(LOCK_PATH, path);
		chain.doFilter(request, response);
	}

	/**
	 * A lock's path as the client sent it: the namespace, and the key still
	 * percent-encoded.
	 *
	 * @param namespace the namespace
	 * @param rawKey the key's path segment, not decoded
	 */
	record RawLockPath(String namespace, String rawKey) {

		/**
		 * Parse a request URI, as sent.
		 * @param uri the URI's path
		 * @param clientNamespace the client's namespace, valid already: a path in it
		 * needs no second check of its namespace
		 * @return the path, or {@code null} unless it is exactly
		 * {@code /v1/namespaces/<namespace>/locks/<key>} with a valid namespace
		 */
		static @Nullable RawLockPath parse(String uri, String clientNamespace) {
			if (!uri.startsWith(PREFIX)) {
				return null;
			}
			int locks = uri.indexOf(LOCKS, PREFIX.length());
			if (locks < 0) {
				return null;
			}
			String namespace = uri.substring(PREFIX.length(), locks);
			String rawKey = uri.substring(locks + LOCKS.length());
			if (rawKey.indexOf('/') >= 0
					|| (!namespace.equals(clientNamespace) && !ApiClients.NAMESPACE.matcher(namespace).matches())) {
				return null;
			}
			return new RawLockPath(namespace, rawKey);
		}

	}

}
