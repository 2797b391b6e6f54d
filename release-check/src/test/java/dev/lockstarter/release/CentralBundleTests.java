package dev.lockstarter.release;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.lockstarter.release.CentralBundle.Component;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The release bundle against the publisher portal's requirements for a component on Maven
 * Central: every published module and nothing else, a release version, a POM with the
 * required elements, sources and Javadoc beside every jar, checksums and signatures of
 * every file, and a CycloneDX SBOM per module. The portal checks the same requirements on
 * upload (and also that the signing key is published, which a key made for a test run is
 * not).
 */
class CentralBundleTests {

	private static final Set<String> CHECKSUMS = Set.of(".md5", ".sha1", ".sha256", ".sha512");

	private static CentralBundle bundle;

	private static Map<String, Component> components;

	@BeforeAll
	static void openBundle() {
		bundle = CentralBundle.open(Path.of(System.getProperty("central.bundle")));
		components = bundle.components();
	}

	static Stream<String> publishedModules() throws IOException {
		return publishedModuleNames().stream();
	}

	@Test
	void holdsEveryPublishedModuleAndNothingElse() throws IOException {
		assertThat(components.keySet()).as("components of %s", bundle.path())
			.containsExactlyInAnyOrderElementsOf(publishedModuleNames());
		assertThat(bundle.strayPaths()).as("files outside a component's directory").isEmpty();
		assertThat(bundle.paths()).as("Maven's own metadata, which the portal refuses")
			.noneMatch((path) -> path.contains("maven-metadata"));
	}

	@ParameterizedTest
	@MethodSource("publishedModules")
	void hasAReleaseVersion(String artifactId) {
		Component component = components.get(artifactId);
		assertThat(component.groupId()).isEqualTo("dev.lockstarter");
		assertThat(component.version()).isEqualTo(System.getProperty("release.version"))
			.as("a release needs a version without -SNAPSHOT: -Drevision=<version>")
			.doesNotEndWith("-SNAPSHOT");
	}

	@ParameterizedTest
	@MethodSource("publishedModules")
	void hasAPomWithWhatTheRequirementsName(String artifactId) {
		Component component = components.get(artifactId);
		PublishedPom pom = PublishedPom.parse(bundle.bytes(component.file(".pom")));
		assertThat(pom.text("groupId")).isEqualTo(component.groupId());
		assertThat(pom.text("artifactId")).isEqualTo(artifactId);
		assertThat(pom.text("version")).isEqualTo(component.version());
		for (String required : List.of("name", "description", "url", "licenses/license/name", "licenses/license/url",
				"developers/developer/name", "scm/url", "scm/connection")) {
			assertThat(pom.text(required)).as("%s of %s", required, artifactId).isNotBlank();
		}
		assertThat(pom.has("parent")).as("a parent that is not published").isFalse();
		assertThat(pom.source()).as("an unresolved version").doesNotContain("${revision}");
		assertThat(pom.dependencies()).allSatisfy((dependency) -> {
			assertThat(dependency.version()).as("version of %s", dependency).isNotBlank();
			if (dependency.groupId().equals(component.groupId())) {
				assertThat(components).as("%s, which %s depends on", dependency.artifactId(), artifactId)
					.containsKey(dependency.artifactId());
				assertThat(dependency.version()).isEqualTo(component.version());
			}
		});
	}

	@ParameterizedTest
	@MethodSource("publishedModules")
	void hasSourcesAndJavadocBesideItsJar(String artifactId) throws IOException {
		Component component = components.get(artifactId);
		PublishedPom pom = PublishedPom.parse(bundle.bytes(component.file(".pom")));
		if (pom.packaging().equals("pom")) {
			assertThat(component.files()).noneMatch((file) -> file.endsWith(".jar"));
			return;
		}
		assertThat(ArchiveEntries.of(bundle.bytes(component.file(".jar")))).contains("META-INF/MANIFEST.MF");
		Set<String> sources = ArchiveEntries.of(bundle.bytes(component.file("-sources.jar")));
		Set<String> javadoc = ArchiveEntries.of(bundle.bytes(component.file("-javadoc.jar")));
		if (hasMainSources(artifactId)) {
			assertThat(sources).anyMatch((entry) -> entry.endsWith(".java") || entry.endsWith(".kt"));
			assertThat(javadoc).contains("index.html");
		}
		else {
			assertThat(javadoc).as("the Javadoc jar of a module without code").contains("README.md");
			assertThat(sources).as("the sources jar of a module without code").contains("README.md");
		}
	}

	@ParameterizedTest
	@MethodSource("publishedModules")
	void signsAndChecksumsEveryFile(String artifactId) throws Exception {
		Component component = components.get(artifactId);
		List<String> artifacts = component.files()
			.stream()
			.filter((file) -> !file.endsWith(".asc") && CHECKSUMS.stream().noneMatch(file::endsWith))
			.toList();
		assertThat(artifacts).isNotEmpty();
		for (String file : artifacts) {
			byte[] bytes = bundle.bytes(file);
			assertThat(text(file + ".md5")).as("MD5 of %s", file).isEqualTo(digest("MD5", bytes));
			assertThat(text(file + ".sha1")).as("SHA-1 of %s", file).isEqualTo(digest("SHA-1", bytes));
			assertThat(Signatures.verify(bytes, bundle.bytes(file + ".asc"))).as("signature of %s", file)
				.isEqualTo(Signatures.GOOD);
		}
	}

	@ParameterizedTest
	@MethodSource("publishedModules")
	void describesItsDependenciesInACycloneDxSbom(String artifactId) {
		Component component = components.get(artifactId);
		Sbom sbom = Sbom.parse(bundle.bytes(component.file("-cyclonedx.json")));
		assertThat(sbom.format()).isEqualTo("CycloneDX");
		assertThat(sbom.subject()).isEqualTo("pkg:maven/" + component.groupId() + "/" + artifactId + "@"
				+ component.version() + (artifactId.equals("lock-bom") ? "?type=pom" : "?type=jar"));
		PublishedPom pom = PublishedPom.parse(bundle.bytes(component.file(".pom")));
		assertThat(sbom.componentPurls()).as("the SBOM of %s names its required dependencies", artifactId)
			.allSatisfy((purl) -> assertThat(purl).startsWith("pkg:maven/"))
			.containsAll(pom.dependencies()
				.stream()
				.filter((dependency) -> !dependency.optional() && !dependency.scope().equals("test")
						&& !dependency.scope().equals("provided"))
				.map((dependency) -> "pkg:maven/" + dependency.groupId() + "/" + dependency.artifactId() + "@"
						+ dependency.version() + "?type=jar")
				.toList());
	}

	private static String text(String path) {
		return new String(bundle.bytes(path), StandardCharsets.US_ASCII).trim();
	}

	private static String digest(String algorithm, byte[] bytes) throws NoSuchAlgorithmException {
		return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(bytes));
	}

	private static Path root() {
		return Path.of(System.getProperty("release.root"));
	}

	private static boolean hasMainSources(String artifactId) throws IOException {
		Path main = root().resolve(artifactId).resolve("src/main");
		if (!Files.isDirectory(main)) {
			return false;
		}
		try (Stream<Path> files = Files.walk(main)) {
			return files.anyMatch((file) -> file.toString().endsWith(".java") || file.toString().endsWith(".kt"));
		}
	}

	/**
	 * The modules whose POM says they are published, read from the source tree, so that a
	 * module added or left out of publication is seen here without a list to keep.
	 */
	private static Set<String> publishedModuleNames() throws IOException {
		Set<String> published = new TreeSet<>();
		try (Stream<Path> modules = Files.list(root())) {
			for (Path module : modules.filter((dir) -> Files.isRegularFile(dir.resolve("pom.xml"))).toList()) {
				if (Files.readString(module.resolve("pom.xml"))
					.contains("<skip.publication>false</skip.publication>")) {
					published.add(module.getFileName().toString());
				}
			}
		}
		return published;
	}

}
