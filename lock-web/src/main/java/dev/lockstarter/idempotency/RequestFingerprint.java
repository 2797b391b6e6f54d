package dev.lockstarter.idempotency;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.TreeMap;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.MediaType;

/**
 * The fingerprint of an idempotent request: SHA-256 over its method, path, query, content
 * type and body, so that a key reused for a different request is detected. For a
 * form-encoded request, whose body the container reads into parameters, the parameters
 * (sorted by name) take the place of the body.
 * <p>
 * Every component is written with its length, and an absent one ({@code null}) differs
 * from an empty one, so that distinct requests never run together into the same input:
 * path {@code "/a"} with query {@code "bc"} is not path {@code "/ab"} with query
 * {@code "c"}.
 */
final class RequestFingerprint {

	private RequestFingerprint() {
	}

	/**
	 * Compute the fingerprint of a request, reading its body from the buffer.
	 * @param request the request
	 * @param buffered the request's buffered body
	 * @param maxBodySize the largest accepted body, in bytes
	 * @return the SHA-256 fingerprint, 32 bytes
	 * @throws IOException if the body cannot be read
	 * @throws IdempotentRequestTooLargeException if the body is larger than
	 * {@code maxBodySize}
	 */
	static byte[] of(HttpServletRequest request, BufferedBodyRequest buffered, long maxBodySize) throws IOException {
		String contentType = request.getContentType();
		if (isForm(contentType)) {
			return ofForm(request.getMethod(), request.getRequestURI(), request.getQueryString(), contentType,
					request.getParameterMap());
		}
		return ofBody(request.getMethod(), request.getRequestURI(), request.getQueryString(), contentType,
				buffered.body(maxBodySize));
	}

	/**
	 * Compute the fingerprint of a request with a body.
	 * @param method the HTTP method
	 * @param path the request URI, without the query
	 * @param query the query string, or {@code null} for none
	 * @param contentType the content type, or {@code null} for none
	 * @param body the body, empty for none
	 * @return the SHA-256 fingerprint, 32 bytes
	 */
	static byte[] ofBody(String method, String path, @Nullable String query, @Nullable String contentType,
			byte[] body) {
		return digest((out) -> {
			writeRequestLine(out, method, path, query, contentType);
			out.writeInt(body.length);
			out.write(body);
		});
	}

	/**
	 * Compute the fingerprint of a form-encoded request from its parameters.
	 * @param method the HTTP method
	 * @param path the request URI, without the query
	 * @param query the query string, or {@code null} for none
	 * @param contentType the content type, or {@code null} for none
	 * @param parameters the request's parameters, in any order
	 * @return the SHA-256 fingerprint, 32 bytes
	 */
	static byte[] ofForm(String method, String path, @Nullable String query, @Nullable String contentType,
			Map<String, String[]> parameters) {
		return digest((out) -> {
			writeRequestLine(out, method, path, query, contentType);
			Map<String, String[]> sorted = new TreeMap<>(parameters);
			out.writeInt(sorted.size());
			for (Map.Entry<String, String[]> parameter : sorted.entrySet()) {
				writeString(out, parameter.getKey());
				out.writeInt(parameter.getValue().length);
				for (String value : parameter.getValue()) {
					writeString(out, value);
				}
			}
		});
	}

	/**
	 * Return whether a content type is form-encoded, whose body the container reads into
	 * parameters.
	 * @param contentType the content type, or {@code null} for none
	 * @return {@code true} for {@code application/x-www-form-urlencoded}
	 */
	static boolean isForm(@Nullable String contentType) {
		try {
			return contentType != null
					&& MediaType.APPLICATION_FORM_URLENCODED.includes(MediaType.parseMediaType(contentType));
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

	private static void writeRequestLine(DataOutputStream out, String method, String path, @Nullable String query,
			@Nullable String contentType) throws IOException {
		out.writeUTF(method);
		writeString(out, path);
		writeString(out, query);
		writeString(out, contentType);
	}

	private static void writeString(DataOutputStream out, @Nullable String value) throws IOException {
		if (value == null) {
			out.writeInt(-1);
			return;
		}
		byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
		out.writeInt(bytes.length);
		out.write(bytes);
	}

	private static byte[] digest(Content content) {
		MessageDigest digest = sha256();
		try (DataOutputStream out = new DataOutputStream(
				new DigestOutputStream(OutputStream.nullOutputStream(), digest))) {
			content.writeTo(out);
		}
		catch (IOException ex) {
			// Writes to a digest do not fail
			throw new UncheckedIOException(ex);
		}
		return digest.digest();
	}

	private static MessageDigest sha256() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is not available", ex);
		}
	}

	@FunctionalInterface
	private interface Content {

		void writeTo(DataOutputStream out) throws IOException;

	}

}
