package dev.lockstarter.idempotency;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;

/**
 * A servlet response that passes through untouched until
 * {@link IdempotentRequestInterceptor} finds that its handler is idempotent and calls
 * {@link #hold(long, boolean)}: from then on, its body is held, up to a bound, so that it
 * can be kept for replays, and written to the client by {@link #send()} once the request
 * completes. A body that grows past the bound is not kept: either what was held is
 * written to the client and the rest streams through ({@code streamBeyond}), or it is
 * dropped and the rest is only counted, so that the response can be replaced. Either way
 * no more than the bound is held.
 */
final class BufferedResponse extends HttpServletResponseWrapper {

	private @Nullable BoundedBuffer held;

	private boolean streamBeyond;

	private boolean overflowed;

	private long size;

	private @Nullable Long contentLength;

	private @Nullable ServletOutputStream outputStream;

	private @Nullable PrintWriter writer;

	BufferedResponse(HttpServletResponse response) {
		super(response);
	}

	/**
	 * Hold the body from now on, up to a bound. Called before the handler writes.
	 * @param maxSize the most bytes held
	 * @param streamBeyond whether a body past the bound streams to the client (otherwise
	 * the rest is dropped)
	 */
	void hold(long maxSize, boolean streamBeyond) {
		this.held = new BoundedBuffer(maxSize);
		this.streamBeyond = streamBeyond;
	}

	/**
	 * Return whether the body is held, whole so far.
	 * @return {@code false} if it was never held or it passed the bound
	 */
	boolean isHeld() {
		return this.held != null && !this.overflowed;
	}

	/**
	 * Return whether the body passed the bound, so it cannot be kept.
	 * @return whether the body outgrew the bound
	 */
	boolean isOverflowed() {
		return this.overflowed;
	}

	/**
	 * Return how many body bytes the handler wrote while the body was held or counted.
	 * @return the size of the body, in bytes
	 */
	long getBodySize() {
		return this.size;
	}

	/**
	 * Return the held body.
	 * @return a copy of it, empty if none is held
	 */
	byte[] getBody() {
		BoundedBuffer held = this.held;
		return (held != null && !this.overflowed) ? held.toByteArray() : new byte[0];
	}

	/**
	 * Write the held body, if any, to the client, and stop holding.
	 * @throws IOException if the body cannot be written
	 */
	void send() throws IOException {
		BoundedBuffer held = this.held;
		if (held == null) {
			return;
		}
		if (this.writer != null) {
			// Into the held body, or through, past the bound
			this.writer.flush();
		}
		this.held = null;
		if (this.overflowed) {
			return;
		}
		HttpServletResponse response = (HttpServletResponse) getResponse();
		if (!response.isCommitted()) {
			response.setContentLengthLong(held.size());
		}
		if (held.size() > 0) {
			response.getOutputStream().write(held.toByteArray());
		}
		response.flushBuffer();
	}

	private void write(byte[] bytes, int offset, int length) throws IOException {
		BoundedBuffer held = this.held;
		if (held == null) {
			getResponse().getOutputStream().write(bytes, offset, length);
			return;
		}
		this.size += length;
		if (this.overflowed) {
			if (this.streamBeyond) {
				getResponse().getOutputStream().write(bytes, offset, length);
			}
			return;
		}
		if (held.write(bytes, offset, length)) {
			return;
		}
		this.overflowed = true;
		if (this.streamBeyond) {
			Long contentLength = this.contentLength;
			if (contentLength != null) {
				super.setContentLengthLong(contentLength);
			}
			ServletOutputStream out = getResponse().getOutputStream();
			out.write(held.toByteArray());
			out.write(bytes, offset, length);
		}
		held.clear();
	}

	@Override
	public ServletOutputStream getOutputStream() throws IOException {
		if (this.held == null) {
			return super.getOutputStream();
		}
		ServletOutputStream outputStream = this.outputStream;
		if (outputStream == null) {
			outputStream = new HoldingOutputStream();
			this.outputStream = outputStream;
		}
		return outputStream;
	}

	@Override
	public PrintWriter getWriter() throws IOException {
		if (this.held == null) {
			return super.getWriter();
		}
		PrintWriter writer = this.writer;
		if (writer == null) {
			String encoding = getCharacterEncoding();
			Charset charset;
			try {
				charset = Charset.forName(encoding);
			}
			catch (RuntimeException ex) {
				throw new UnsupportedEncodingException(encoding);
			}
			writer = new PrintWriter(new OutputStreamWriter(getOutputStream(), charset));
			this.writer = writer;
		}
		return writer;
	}

	@Override
	public void flushBuffer() throws IOException {
		if (this.held == null || (this.overflowed && this.streamBeyond)) {
			if (this.writer != null) {
				this.writer.flush();
			}
			super.flushBuffer();
		}
		// Held: nothing goes out before the response is kept
	}

	@Override
	public void setContentLength(int length) {
		setContentLengthLong(length);
	}

	@Override
	public void setContentLengthLong(long length) {
		if (this.held == null || (this.overflowed && this.streamBeyond)) {
			super.setContentLengthLong(length);
		}
		else {
			// Set when the body goes out, so that a declared length does not commit early
			this.contentLength = length;
		}
	}

	@Override
	public void setHeader(String name, @Nullable String value) {
		if (HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name) && value != null && this.held != null) {
			setContentLengthLong(Long.parseLong(value));
		}
		else {
			super.setHeader(name, value);
		}
	}

	@Override
	public void addHeader(String name, @Nullable String value) {
		if (HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name) && value != null && this.held != null) {
			setContentLengthLong(Long.parseLong(value));
		}
		else {
			super.addHeader(name, value);
		}
	}

	@Override
	public void setIntHeader(String name, int value) {
		if (HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name) && this.held != null) {
			setContentLengthLong(value);
		}
		else {
			super.setIntHeader(name, value);
		}
	}

	@Override
	public void sendError(int status) throws IOException {
		send();
		super.sendError(status);
	}

	@Override
	public void sendError(int status, String message) throws IOException {
		send();
		super.sendError(status, message);
	}

	@Override
	public void sendRedirect(String location) throws IOException {
		send();
		super.sendRedirect(location);
	}

	@Override
	public void reset() {
		super.reset();
		resetHeld();
	}

	@Override
	public void resetBuffer() {
		super.resetBuffer();
		resetHeld();
	}

	private void resetHeld() {
		BoundedBuffer held = this.held;
		if (held != null && !(this.overflowed && this.streamBeyond)) {
			held.clear();
			this.overflowed = false;
			this.size = 0;
			this.contentLength = null;
		}
	}

	private final class HoldingOutputStream extends ServletOutputStream {

		@Override
		public void write(int b) throws IOException {
			BufferedResponse.this.write(new byte[] { (byte) b }, 0, 1);
		}

		@Override
		public void write(byte[] bytes, int offset, int length) throws IOException {
			BufferedResponse.this.write(bytes, offset, length);
		}

		@Override
		public void flush() throws IOException {
			flushBuffer();
		}

		@Override
		public boolean isReady() {
			return true;
		}

		@Override
		public void setWriteListener(WriteListener listener) {
			throw new UnsupportedOperationException("Non-blocking writes of a held body are not supported");
		}

	}

}
