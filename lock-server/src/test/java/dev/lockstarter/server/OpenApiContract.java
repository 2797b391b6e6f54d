package dev.lockstarter.server;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import org.yaml.snakeyaml.Yaml;

import org.springframework.core.io.ClassPathResource;

/**
 * The OpenAPI document of {@code classpath:static/v1/openapi.yaml}, read as the server
 * serves it, and used to check real responses: the status must be one the operation
 * declares, the media type the one declared for it, and the body must match the declared
 * schema (JSON Schema 2020-12, as OpenAPI 3.1 uses).
 */
final class OpenApiContract {

	private static final ObjectMapper JSON = new ObjectMapper();

	private static final JsonSchemaFactory SCHEMAS = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);

	private final JsonNode document;

	private final List<String> checked = new ArrayList<>();

	OpenApiContract() {
		try (InputStream in = new ClassPathResource(OpenApiController.LOCATION).getInputStream()) {
			Map<String, Object> yaml = new Yaml().load(in);
			this.document = JSON.valueToTree(yaml);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	JsonNode document() {
		return this.document;
	}

	/**
	 * Return every operation of the document as {@code METHOD path}.
	 * @return the operations
	 */
	Set<String> operations() {
		Set<String> operations = new TreeSet<>();
		Iterator<Map.Entry<String, JsonNode>> paths = this.document.get("paths").fields();
		while (paths.hasNext()) {
			Map.Entry<String, JsonNode> path = paths.next();
			path.getValue().fieldNames().forEachRemaining((name) -> {
				if (List.of("get", "put", "post", "delete", "patch").contains(name)) {
					operations.add(name.toUpperCase(Locale.ROOT) + " " + path.getKey());
				}
			});
		}
		return operations;
	}

	/**
	 * Check a response against the document, throwing an {@link AssertionError} that says
	 * where they differ.
	 * @param method the request method
	 * @param path the path template, as in the document
	 * @param status the response status
	 * @param contentType the response's media type, or {@code null} without a body
	 * @param body the response body, empty if none
	 */
	void check(String method, String path, int status, String contentType, String body) {
		JsonNode operation = this.document.path("paths").path(path).path(method.toLowerCase(Locale.ROOT));
		if (operation.isMissingNode()) {
			throw new AssertionError("The OpenAPI document has no operation " + method + " " + path);
		}
		JsonNode response = resolve(operation.path("responses").path(Integer.toString(status)));
		if (response.isMissingNode()) {
			throw new AssertionError("The OpenAPI document does not declare status " + status + " for " + method + " "
					+ path + " (body: " + body + ")");
		}
		JsonNode content = response.path("content");
		if (content.isMissingNode()) {
			if (!body.isEmpty()) {
				throw new AssertionError(method + " " + path + " " + status + " declares no body, but got " + body);
			}
			this.checked.add(method + " " + path + " " + status);
			return;
		}
		String mediaType = (contentType != null) ? contentType.split(";")[0].trim() : "";
		JsonNode declared = content.path(mediaType);
		if (declared.isMissingNode()) {
			throw new AssertionError(method + " " + path + " " + status + " declares " + fieldNames(content)
					+ ", but the response is " + contentType);
		}
		if (mediaType.endsWith("json")) {
			ObjectNode schema = JSON.createObjectNode();
			schema.setAll((ObjectNode) declared.path("schema"));
			schema.set("components", this.document.get("components"));
			try {
				Set<ValidationMessage> errors = SCHEMAS.getSchema(schema).validate(JSON.readTree(body));
				if (!errors.isEmpty()) {
					throw new AssertionError(method + " " + path + " " + status + " does not match its schema: "
							+ errors + " (body: " + body + ")");
				}
			}
			catch (IOException ex) {
				throw new AssertionError("Not JSON: " + body, ex);
			}
		}
		this.checked.add(method + " " + path + " " + status);
	}

	/**
	 * Return the {@code METHOD path status} of every response checked so far.
	 * @return the checked responses
	 */
	List<String> checked() {
		return this.checked;
	}

	private JsonNode resolve(JsonNode node) {
		JsonNode ref = node.path("$ref");
		if (ref.isTextual() && ref.asText().startsWith("#/")) {
			return this.document.at(ref.asText().substring(1));
		}
		return node;
	}

	private static List<String> fieldNames(JsonNode node) {
		List<String> names = new ArrayList<>();
		node.fieldNames().forEachRemaining(names::add);
		return names;
	}

}
