package dev.lockstarter.server;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Guards {@code /v1/namespaces/**}: the {@code Authorization: Bearer} API key must belong
 * to a configured client (else 401), the path's namespace must be the client's (else 403,
 * whether or not that namespace exists, so a client learns nothing of others), and the
 * client's rate limit must allow the request (else 429 with {@code Retry-After}). The
 * authenticated client is left in the request attribute {@link #CLIENT}.
 *
 * @since 0.1.0
 */
class ApiKeyFilter extends OncePerRequestFilter {

	static final String CLIENT = ApiKeyFilter.class.getName() + ".client";

	static final String PREFIX = "/v1/namespaces/";

	private static final String BEARER = "Bearer ";

	private final ApiClients clients;

	private final RateLimiter rateLimiter;

	ApiKeyFilter(ApiClients clients, RateLimiter rateLimiter) {
		this.clients = clients;
		this.rateLimiter = rateLimiter;
	}

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		return !request.getRequestURI().startsWith(PREFIX);
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
		String path = request.getRequestURI().substring(PREFIX.length());
		int end = path.indexOf('/');
		String namespace = (end >= 0) ? path.substring(0, end) : path;
		if (!namespace.equals(client.namespace())) {
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
		chain.doFilter(request, response);
	}

}
