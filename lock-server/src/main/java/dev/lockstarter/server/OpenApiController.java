package dev.lockstarter.server;

import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Serves the OpenAPI document of the lock API, without authentication.
 *
 * @since 0.1.0
 */
@RestController
class OpenApiController {

	static final String LOCATION = "static/v1/openapi.yaml";

	private static final MediaType YAML = MediaType.parseMediaType("application/yaml");

	@GetMapping("/v1/openapi.yaml")
	ResponseEntity<Resource> openApi() {
		return ResponseEntity.ok().contentType(YAML).body(new ClassPathResource(LOCATION));
	}

}
