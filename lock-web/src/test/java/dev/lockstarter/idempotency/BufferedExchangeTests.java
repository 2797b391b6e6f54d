package dev.lockstarter.idempotency;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link BufferedExchange}: the form parameters the reactive filter
 * fingerprints.
 */
class BufferedExchangeTests {

	@Test
	void formParametersFollowTheQueryParametersAsInAServletContainer() {
		MultiValueMap<String, String> query = new LinkedMultiValueMap<>();
		query.add("a", "1");
		query.add("flag", null);
		MultiValueMap<String, String> form = new LinkedMultiValueMap<>();
		form.add("a", "2");
		form.add("b", "3");
		Map<String, String[]> parameters = BufferedExchange.parameters(query, form);
		assertThat(parameters).containsOnlyKeys("a", "flag", "b");
		assertThat(parameters.get("a")).containsExactly("1", "2");
		assertThat(parameters.get("flag")).containsExactly("");
		assertThat(RequestFingerprint.ofForm("POST", "/p", "a=1&flag", "application/x-www-form-urlencoded", parameters))
			.isEqualTo(RequestFingerprint.ofForm("POST", "/p", "a=1&flag", "application/x-www-form-urlencoded",
					Map.of("b", new String[] { "3" }, "a", new String[] { "1", "2" }, "flag", new String[] { "" })));
	}

}
