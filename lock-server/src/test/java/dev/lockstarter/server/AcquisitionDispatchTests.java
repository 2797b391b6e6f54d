package dev.lockstarter.server;

import java.util.UUID;

import jakarta.servlet.Filter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import static dev.lockstarter.server.LockServers.ALPHA_KEY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.asyncDispatch;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.request;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * How Spring MVC answers an acquisition, in a server on a real Redis: one that does not
 * wait is answered on the request thread, granted or refused, without an asynchronous
 * dispatch; only one that waits starts asynchronous processing.
 */
class AcquisitionDispatchTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static LockServers servers;

	private static MockMvc mvc;

	@BeforeAll
	static void startServer() {
		servers = LockServers.onRedis(1, redis.port());
		WebApplicationContext context = (WebApplicationContext) servers.context(0);
		Filter apiKeys = context.getBean("apiKeyFilter", FilterRegistrationBean.class).getFilter();
		mvc = MockMvcBuilders.webAppContextSetup(context).addFilters(apiKeys).build();
	}

	@AfterAll
	static void stopServer() {
		servers.close();
	}

	@Test
	void anAcquisitionWithoutAWaitIsAnsweredWithoutAnAsynchronousDispatch() throws Exception {
		String key = key();
		MvcResult acquired = mvc.perform(acquire(key, null))
			.andExpect(request().asyncNotStarted())
			.andExpect(status().isCreated())
			.andExpect(header().string("Location", "/v1/namespaces/tests/locks/" + key))
			.andExpect(jsonPath("$.ownerToken").isString())
			.andReturn();
		mvc.perform(acquire(key, "{\"waitMillis\":0}"))
			.andExpect(request().asyncNotStarted())
			.andExpect(status().isConflict())
			.andExpect(jsonPath("$.timeToExpiryMillis").isNumber());
		release(key, acquired);
	}

	@Test
	void anAcquisitionThatWaitsIsAnsweredAsynchronously() throws Exception {
		String key = key();
		MvcResult waited = mvc.perform(acquire(key, "{\"waitMillis\":5000}"))
			.andExpect(request().asyncStarted())
			.andReturn();
		MvcResult acquired = mvc.perform(asyncDispatch(waited)).andExpect(status().isCreated()).andReturn();
		release(key, acquired);
	}

	private static MockHttpServletRequestBuilder acquire(String key, String body) {
		MockHttpServletRequestBuilder request = post("/v1/namespaces/tests/locks/" + key).header("Authorization",
				"Bearer " + ALPHA_KEY);
		return (body != null) ? request.contentType(MediaType.APPLICATION_JSON).content(body) : request;
	}

	private static void release(String key, MvcResult acquired) throws Exception {
		String token = acquired.getResponse().getContentAsString().replaceAll(".*\"ownerToken\":\"([^\"]+)\".*", "$1");
		assertThat(token).hasSize(22);
		mvc.perform(delete("/v1/namespaces/tests/locks/" + key).header("Authorization", "Bearer " + ALPHA_KEY)
			.header(LockController.OWNER_TOKEN, token)).andExpect(status().isNoContent());
	}

	private static String key() {
		return "dispatch-" + UUID.randomUUID();
	}

}
