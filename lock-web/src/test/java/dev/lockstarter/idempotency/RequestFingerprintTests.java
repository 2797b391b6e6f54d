package dev.lockstarter.idempotency;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link RequestFingerprint}.
 */
class RequestFingerprintTests {

	private static final byte[] BODY = bytes("{\"amount\": 100}");

	private static final byte[] REFERENCE = RequestFingerprint.ofBody("POST", "/payments", "currency=EUR",
			"application/json", BODY);

	@Test
	void sameRequestHasTheSameSha256Fingerprint() {
		assertThat(REFERENCE).hasSize(32);
		assertThat(RequestFingerprint.ofBody("POST", "/payments", "currency=EUR", "application/json",
				bytes("{\"amount\": 100}")))
			.isEqualTo(REFERENCE);
	}

	@Test
	void fingerprintIsSha256OverLengthPrefixedComponents() throws Exception {
		// The layout of fingerprints kept with stored responses: changing it would make
		// every retry after an upgrade a reused key
		ByteArrayOutputStream expected = new ByteArrayOutputStream();
		try (DataOutputStream out = new DataOutputStream(expected)) {
			out.writeUTF("POST");
			for (String component : new String[] { "/payments", "currency=EUR", "application/json" }) {
				out.writeInt(component.length());
				out.write(bytes(component));
			}
			out.writeInt(BODY.length);
			out.write(BODY);
		}
		assertThat(REFERENCE).isEqualTo(MessageDigest.getInstance("SHA-256").digest(expected.toByteArray()));
	}

	@Test
	void methodChangesTheFingerprint() {
		assertThat(RequestFingerprint.ofBody("PUT", "/payments", "currency=EUR", "application/json", BODY))
			.isNotEqualTo(REFERENCE);
	}

	@Test
	void pathChangesTheFingerprint() {
		assertThat(RequestFingerprint.ofBody("POST", "/refunds", "currency=EUR", "application/json", BODY))
			.isNotEqualTo(REFERENCE);
	}

	@Test
	void queryChangesTheFingerprint() {
		assertThat(RequestFingerprint.ofBody("POST", "/payments", "currency=USD", "application/json", BODY))
			.isNotEqualTo(REFERENCE);
		assertThat(RequestFingerprint.ofBody("POST", "/payments", null, "application/json", BODY))
			.isNotEqualTo(REFERENCE);
	}

	@Test
	void contentTypeChangesTheFingerprint() {
		assertThat(RequestFingerprint.ofBody("POST", "/payments", "currency=EUR", "text/plain", BODY))
			.isNotEqualTo(REFERENCE);
	}

	@Test
	void bodyChangesTheFingerprint() {
		assertThat(RequestFingerprint.ofBody("POST", "/payments", "currency=EUR", "application/json",
				bytes("{\"amount\": 101}")))
			.isNotEqualTo(REFERENCE);
		assertThat(RequestFingerprint.ofBody("POST", "/payments", "currency=EUR", "application/json", new byte[0]))
			.isNotEqualTo(REFERENCE);
	}

	@Test
	void absentQueryAndContentTypeDifferFromEmptyOnes() {
		assertThat(RequestFingerprint.ofBody("POST", "/p", null, "text/plain", BODY))
			.isNotEqualTo(RequestFingerprint.ofBody("POST", "/p", "", "text/plain", BODY));
		assertThat(RequestFingerprint.ofBody("POST", "/p", "q", null, BODY))
			.isNotEqualTo(RequestFingerprint.ofBody("POST", "/p", "q", "", BODY));
	}

	@Test
	void componentsDoNotRunTogether() {
		assertThat(RequestFingerprint.ofBody("POST", "/a", "bc", "text/plain", BODY))
			.isNotEqualTo(RequestFingerprint.ofBody("POST", "/ab", "c", "text/plain", BODY));
		assertThat(RequestFingerprint.ofBody("POST", "/a", "b", "ctext/plain", BODY))
			.isNotEqualTo(RequestFingerprint.ofBody("POST", "/a", "bc", "text/plain", BODY));
		assertThat(RequestFingerprint.ofBody("POST", "/a", "b", "text/plainx", bytes("y")))
			.isNotEqualTo(RequestFingerprint.ofBody("POST", "/a", "b", "text/plain", bytes("xy")));
		assertThat(RequestFingerprint.ofBody("POST", "/a", "b", "text/plain", BODY))
			.isNotEqualTo(RequestFingerprint.ofBody("POS", "T/a", "b", "text/plain", BODY));
	}

	@Test
	void formParametersInAnyOrderHaveTheSameFingerprint() {
		Map<String, String[]> ordered = new LinkedHashMap<>();
		ordered.put("amount", new String[] { "100" });
		ordered.put("currency", new String[] { "EUR" });
		Map<String, String[]> reversed = new LinkedHashMap<>();
		reversed.put("currency", new String[] { "EUR" });
		reversed.put("amount", new String[] { "100" });
		assertThat(form(ordered)).isEqualTo(form(reversed));
	}

	@Test
	void formParameterNamesAndValuesDoNotRunTogether() {
		assertThat(form(Map.of("a", new String[] { "bc" }))).isNotEqualTo(form(Map.of("ab", new String[] { "c" })));
		assertThat(form(Map.of("a", new String[] { "b", "c" }))).isNotEqualTo(form(Map.of("a", new String[] { "bc" })));
		assertThat(form(Map.of("a", new String[] { "b" }, "c", new String[0])))
			.isNotEqualTo(form(Map.of("a", new String[] { "b", "c" })));
		assertThat(form(Map.of("a", new String[] { "b" }))).isNotEqualTo(form(Map.of("a", new String[] { "c" })));
	}

	@Test
	void requestWithABodyIsFingerprintedFromItsComponents() throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/payments");
		request.setQueryString("currency=EUR");
		request.setContentType("application/json");
		request.setContent(BODY);
		assertThat(RequestFingerprint.of(request, new BufferedBodyRequest(request), 1024)).isEqualTo(REFERENCE);
	}

	@Test
	void formEncodedRequestIsFingerprintedFromItsParameters() throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/payments");
		request.setContentType("application/x-www-form-urlencoded; charset=UTF-8");
		request.addParameter("amount", "100");
		byte[] fingerprint = RequestFingerprint.of(request, new BufferedBodyRequest(request), 1024);
		assertThat(fingerprint).isEqualTo(RequestFingerprint.ofForm("POST", "/payments", null,
				"application/x-www-form-urlencoded; charset=UTF-8", Map.of("amount", new String[] { "100" })));
		request.setParameter("amount", "101");
		assertThat(RequestFingerprint.of(request, new BufferedBodyRequest(request), 1024)).isNotEqualTo(fingerprint);
	}

	@Test
	void bodyLargerThanTheLimitIsRejected() {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/payments");
		request.setContentType("application/json");
		request.setContent(BODY);
		assertThatExceptionOfType(IdempotentRequestTooLargeException.class)
			.isThrownBy(() -> RequestFingerprint.of(request, new BufferedBodyRequest(request), BODY.length - 1));
	}

	@Test
	void onlyFormUrlEncodedContentIsAForm() {
		assertThat(RequestFingerprint.isForm("application/x-www-form-urlencoded")).isTrue();
		assertThat(RequestFingerprint.isForm("application/json")).isFalse();
		assertThat(RequestFingerprint.isForm("multipart/form-data")).isFalse();
		assertThat(RequestFingerprint.isForm("not a media type")).isFalse();
		assertThat(RequestFingerprint.isForm(null)).isFalse();
	}

	private static byte[] form(Map<String, String[]> parameters) {
		return RequestFingerprint.ofForm("POST", "/p", null, "application/x-www-form-urlencoded", parameters);
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
