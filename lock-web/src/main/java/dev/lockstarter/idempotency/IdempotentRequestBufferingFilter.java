package dev.lockstarter.idempotency;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import dev.lockstarter.core.Internal;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Prepares the requests that carry an {@code Idempotency-Key} header, and their
 * responses, for {@link IdempotentRequestInterceptor}, which alone knows the handler the
 * dispatcher chose. Both are wrapped, but pass through untouched unless the handler is an
 * {@link IdempotentRequest} one: then the interceptor reads the request body in full
 * before the handler reads it (growing a buffer as bytes arrive, up to the largest
 * accepted body), and holds the response body, up to the largest kept response, so that
 * it can be kept for replays; the filter writes it to the client when the request
 * completes. A request to any other handler is neither buffered nor held. Requests
 * without the header are not wrapped at all.
 * <p>
 * The filter is ordered ({@link #DEFAULT_ORDER}) late among servlet filters, so that
 * security and other filters run first and only the dispatch to the handler is buffered.
 *
 * @since 0.1.0
 */
@Internal
public class IdempotentRequestBufferingFilter extends OncePerRequestFilter implements Ordered {

	/** The default order: {@code Ordered.LOWEST_PRECEDENCE - 100}. */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private int order = DEFAULT_ORDER;

	/**
	 * Set the order of this filter among the servlet filters.
	 * @param order the order, {@link #DEFAULT_ORDER} by default
	 */
	public void setOrder(int order) {
		this.order = order;
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		return request.getHeader(IdempotentRequestInterceptor.IDEMPOTENCY_KEY) == null;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		BufferedResponse buffered = new BufferedResponse(response);
		chain.doFilter(new BufferedBodyRequest(request), buffered);
		buffered.send();
	}

}
