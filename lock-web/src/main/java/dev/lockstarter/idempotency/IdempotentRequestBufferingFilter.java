package dev.lockstarter.idempotency;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * Buffers the requests that carry an {@code Idempotency-Key} header, and their responses,
 * for {@link IdempotentRequestInterceptor}: the request body can be read in full before
 * the handler reads it, and the response body is held so that it can be kept for replays,
 * then written to the client when the request completes. Requests without the header pass
 * through untouched.
 * <p>
 * The filter is ordered ({@link #DEFAULT_ORDER}) late among servlet filters, so that
 * security and other filters run first and only the dispatch to the handler is buffered.
 *
 * @since 0.1.0
 */
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
		ContentCachingResponseWrapper capturing = new ContentCachingResponseWrapper(response);
		chain.doFilter(new BufferedBodyRequest(request), capturing);
		capturing.copyBodyToResponse();
	}

}
