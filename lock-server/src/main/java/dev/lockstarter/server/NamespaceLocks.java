package dev.lockstarter.server;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import dev.lockstarter.core.DetachedLockOperations;
import org.springframework.beans.factory.DisposableBean;

/**
 * The {@link DetachedLockOperations} of each namespace, on the one lock store, each with
 * the namespace's key prefix: {@code lock-server:<namespace>:} unless
 * {@code lock.server.namespaces.<namespace>.key-prefix} says otherwise.
 *
 * @since 0.1.0
 */
final class NamespaceLocks implements DisposableBean {

	static final String DEFAULT_PREFIX = "lock-server:";

	private final Map<String, DetachedLockOperations> locks = new LinkedHashMap<>();

	/**
	 * Create the locks of every namespace that a client is bound to.
	 * @param clients the clients
	 * @param properties the properties
	 * @param locksWithPrefix makes the locks of one namespace from its key prefix
	 */
	NamespaceLocks(ApiClients clients, LockServerProperties properties,
			Function<String, DetachedLockOperations> locksWithPrefix) {
		for (String namespace : clients.namespaces()) {
			LockServerProperties.Namespace settings = properties.getNamespaces().get(namespace);
			String prefix = (settings != null && settings.getKeyPrefix() != null) ? settings.getKeyPrefix()
					: DEFAULT_PREFIX + namespace + ":";
			this.locks.put(namespace, locksWithPrefix.apply(prefix));
		}
	}

	/**
	 * Return the locks of a namespace that a client is bound to.
	 * @param namespace the namespace
	 * @return its locks
	 */
	DetachedLockOperations get(String namespace) {
		DetachedLockOperations locks = this.locks.get(namespace);
		if (locks == null) {
			throw new IllegalStateException("No client is bound to namespace '" + namespace + "'");
		}
		return locks;
	}

	@Override
	public void destroy() throws Exception {
		for (DetachedLockOperations locks : this.locks.values()) {
			if (locks instanceof DisposableBean disposable) {
				disposable.destroy();
			}
		}
	}

}
