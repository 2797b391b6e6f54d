package dev.lockstarter.server;

import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.observation.ObservationRegistry;

import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStore;
import org.springframework.beans.factory.DisposableBean;

/**
 * A {@link LockTemplate} per namespace, on the one lock store, each with the namespace's
 * key prefix: {@code lock-server:<namespace>:} unless
 * {@code lock.server.namespaces.<namespace>.key-prefix} says otherwise.
 *
 * @since 0.1.0
 */
final class NamespaceLocks implements DisposableBean {

	static final String DEFAULT_PREFIX = "lock-server:";

	private final Map<String, LockTemplate> templates = new LinkedHashMap<>();

	NamespaceLocks(LockStore store, ApiClients clients, LockServerProperties properties,
			ObservationRegistry observationRegistry) {
		for (String namespace : clients.namespaces()) {
			LockServerProperties.Namespace settings = properties.getNamespaces().get(namespace);
			String prefix = (settings != null && settings.getKeyPrefix() != null) ? settings.getKeyPrefix()
					: DEFAULT_PREFIX + namespace + ":";
			LockTemplate template = new LockTemplate(store, prefix);
			template.setObservationRegistry(observationRegistry);
			this.templates.put(namespace, template);
		}
	}

	/**
	 * Return the template of a namespace that a client is bound to.
	 * @param namespace the namespace
	 * @return its template
	 */
	LockTemplate get(String namespace) {
		LockTemplate template = this.templates.get(namespace);
		if (template == null) {
			throw new IllegalStateException("No client is bound to namespace '" + namespace + "'");
		}
		return template;
	}

	@Override
	public void destroy() {
		this.templates.values().forEach(LockTemplate::destroy);
	}

}
