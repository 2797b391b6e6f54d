package dev.lockstarter.release;

import java.util.ArrayList;
import java.util.List;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A CycloneDX SBOM in JSON: its format, the package URL of the module it describes, and
 * those of the components it lists.
 */
final class Sbom {

	private final JsonNode root;

	private Sbom(JsonNode root) {
		this.root = root;
	}

	static Sbom parse(byte[] json) {
		return new Sbom(JsonMapper.builder().build().readTree(json));
	}

	String format() {
		return this.root.path("bomFormat").asString();
	}

	String subject() {
		return this.root.path("metadata").path("component").path("purl").asString();
	}

	List<String> componentPurls() {
		List<String> purls = new ArrayList<>();
		for (JsonNode component : this.root.path("components")) {
			purls.add(component.path("purl").asString());
		}
		return purls;
	}

}
