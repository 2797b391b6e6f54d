package dev.lockstarter.release;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * A published POM, read with the JDK's XML parser: its elements by path from the project
 * element, and its dependencies.
 */
final class PublishedPom {

	private final String source;

	private final Element project;

	private PublishedPom(String source, Element project) {
		this.source = source;
		this.project = project;
	}

	static PublishedPom parse(byte[] bytes) {
		try {
			DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
			factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
			Document document = factory.newDocumentBuilder().parse(new ByteArrayInputStream(bytes));
			return new PublishedPom(new String(bytes, StandardCharsets.UTF_8), document.getDocumentElement());
		}
		catch (Exception ex) {
			throw new IllegalStateException("Not a well-formed POM", ex);
		}
	}

	String source() {
		return this.source;
	}

	boolean has(String path) {
		return find(this.project, path.split("/"), 0) != null;
	}

	/**
	 * The text of the element at a path such as {@code licenses/license/name} (the first
	 * of each name), or an empty string.
	 */
	String text(String path) {
		Element element = find(this.project, path.split("/"), 0);
		return (element != null) ? element.getTextContent().trim() : "";
	}

	String packaging() {
		String packaging = text("packaging");
		return packaging.isEmpty() ? "jar" : packaging;
	}

	List<Dependency> dependencies() {
		List<Dependency> dependencies = new ArrayList<>();
		Element list = find(this.project, new String[] { "dependencies" }, 0);
		if (list == null) {
			return dependencies;
		}
		for (Element dependency : children(list, "dependency")) {
			dependencies.add(new Dependency(child(dependency, "groupId"), child(dependency, "artifactId"),
					child(dependency, "version"),
					child(dependency, "scope").isEmpty() ? "compile" : child(dependency, "scope"),
					child(dependency, "optional").equals("true")));
		}
		return dependencies;
	}

	private static String child(Element parent, String name) {
		List<Element> found = children(parent, name);
		return found.isEmpty() ? "" : found.get(0).getTextContent().trim();
	}

	private static Element find(Element from, String[] path, int index) {
		if (index == path.length) {
			return from;
		}
		List<Element> found = children(from, path[index]);
		return found.isEmpty() ? null : find(found.get(0), path, index + 1);
	}

	private static List<Element> children(Element parent, String name) {
		List<Element> found = new ArrayList<>();
		NodeList nodes = parent.getChildNodes();
		for (int i = 0; i < nodes.getLength(); i++) {
			Node node = nodes.item(i);
			if (node instanceof Element element
					&& name.equals(element.getLocalName() != null ? element.getLocalName() : element.getTagName())) {
				found.add(element);
			}
		}
		return found;
	}

	record Dependency(String groupId, String artifactId, String version, String scope, boolean optional) {

	}

}
