package dev.lockstarter.idempotency;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.jspecify.annotations.Nullable;

/**
 * A request whose body can be read in full before the handler reads it: once
 * {@link #body(long)} has been called, the handler reads the buffered bytes. Until then
 * every call goes to the wrapped request, so a request whose handler is not idempotent
 * passes through untouched. The buffer grows as bytes arrive, whatever
 * {@code Content-Length} declares.
 */
final class BufferedBodyRequest extends HttpServletRequestWrapper {

	private byte @Nullable [] body;

	private int bufferCapacity;

	BufferedBodyRequest(HttpServletRequest request) {
		super(request);
	}

	/**
	 * Read the whole body, once.
	 * @param maxSize the largest body accepted, in bytes
	 * @return the body
	 * @throws IdempotentRequestTooLargeException if the body is larger than
	 * {@code maxSize}
	 */
	byte[] body(long maxSize) throws IOException {
		byte[] body = this.body;
		if (body == null) {
			if (getContentLengthLong() > maxSize) {
				throw new IdempotentRequestTooLargeException(maxSize);
			}
			// Grows as bytes arrive: a declared length is a claim, not an allocation
			BoundedBuffer buffer = new BoundedBuffer(maxSize);
			InputStream in = super.getInputStream();
			byte[] chunk = new byte[8192];
			int read;
			while ((read = in.read(chunk)) != -1) {
				if (!buffer.write(chunk, 0, read)) {
					throw new IdempotentRequestTooLargeException(maxSize);
				}
			}
			body = buffer.toByteArray();
			this.bufferCapacity = buffer.capacity();
			this.body = body;
		}
		return body;
	}

	/**
	 * Return the capacity of the buffer that read the body, for tests of what is
	 * allocated.
	 * @return its capacity once the body was read, in bytes, or 0 if it was not read
	 */
	int bufferCapacity() {
		return this.bufferCapacity;
	}

	@Override
	public ServletInputStream getInputStream() throws IOException {
		byte[] body = this.body;
		return (body != null) ? new BufferedInputStream(body) : super.getInputStream();
	}

	@Override
	public BufferedReader getReader() throws IOException {
		byte[] body = this.body;
		if (body == null) {
			return super.getReader();
		}
		String encoding = getCharacterEncoding();
		Charset charset = (encoding != null) ? Charset.forName(encoding) : StandardCharsets.ISO_8859_1;
		return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body), charset));
	}

	private static final class BufferedInputStream extends ServletInputStream {

		private final ByteArrayInputStream in;

		BufferedInputStream(byte[] body) {
			this.in = new ByteArrayInputStream(body);
		}

		@Override
		public int read() {
			return this.in.read();
		}

		@Override
		public int read(byte[] bytes, int offset, int length) {
			return this.in.read(bytes, offset, length);
		}

		@Override
		public int available() {
			return this.in.available();
		}

		@Override
		public boolean isFinished() {
			return this.in.available() == 0;
		}

		@Override
		public boolean isReady() {
			return true;
		}

		@Override
		public void setReadListener(ReadListener listener) {
			throw new UnsupportedOperationException("Non-blocking reads of a buffered body are not supported");
		}

	}

}
