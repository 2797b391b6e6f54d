package dev.lockstarter.idempotency;

import java.util.Map;

import org.springframework.http.HttpHeaders;

/**
 * Writes the head of a kept response to the response of a request that replays it, on
 * either web stack: the kept status and headers (never those that are never replayed),
 * {@code Idempotent-Replayed: true} and the body's length. The caller writes the body.
 */
final class ResponseReplay {

	private ResponseReplay() {
	}

	static void writeHead(StoredResponse stored, Head head) {
		head.status(stored.status());
		for (Map.Entry<String, String> header : IdempotencyPolicy.replayedHeaders(stored)) {
			if (HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(header.getKey())) {
				head.contentType(header.getValue());
			}
			else {
				head.addHeader(header.getKey(), header.getValue());
			}
		}
		head.setHeader(IdempotentRequestInterceptor.IDEMPOTENT_REPLAYED, "true");
		head.contentLength(stored.body().length);
	}

	/**
	 * The head of a response of one web stack.
	 */
	interface Head {

		void status(int status);

		void contentType(String contentType);

		void addHeader(String name, String value);

		void setHeader(String name, String value);

		void contentLength(int length);

	}

}
