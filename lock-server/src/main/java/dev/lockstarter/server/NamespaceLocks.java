package dev.lockstarter.server;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.lockstarter.core.DetachedLockOperations;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.core.ReactiveLockTemplate;
import org.springframework.beans.factory.DisposableBean;

/**
 * The locks of each namespace, on the one lock store, each with the namespace's key
 * prefix: {@code lock-server:<namespace>:} unless
 * {@code lock.server.namespaces.<namespace>.key-prefix} says otherwise. No two namespaces
 * share a key: prefixes that are empty, equal, or the start of one another fail startup,
 * and so does a prefix that overlaps the applications' {@code lock.key-prefix} unless the
 * namespace opts in with {@code shares-application-keys}.
 *
 * @since 0.1.0
 */
final class NamespaceLocks implements DisposableBean {

	static final String DEFAULT_PREFIX = "lock-server:";

	private static final Log logger = LogFactory.getLog(NamespaceLocks.class);

	private final Map<String, LockTemplate> locks = new LinkedHashMap<>();

	private final Map<String, ReactiveLockTemplate> waiting = new LinkedHashMap<>();

	/**
	 * Create the locks of every namespace that a client is bound to.
	 * @param clients the clients
	 * @param properties the properties
	 * @param applicationPrefix the applications' {@code lock.key-prefix}
	 * @param locksWithPrefix makes the locks of one namespace from its key prefix
	 */
	NamespaceLocks(ApiClients clients, LockServerProperties properties, String applicationPrefix,
			Function<String, LockTemplate> locksWithPrefix) {
		prefixes(clients, properties, applicationPrefix).forEach((namespace, prefix) -> {
			LockTemplate template = locksWithPrefix.apply(prefix);
			this.locks.put(namespace, template);
			this.waiting.put(namespace, new ReactiveLockTemplate(template));
		});
	}

	/**
	 * Return the key prefix of every namespace, checked.
	 * @param clients the clients
	 * @param properties the properties
	 * @param applicationPrefix the applications' {@code lock.key-prefix}
	 * @return the prefix of each namespace that a client is bound to
	 */
	static Map<String, String> prefixes(ApiClients clients, LockServerProperties properties, String applicationPrefix) {
		Set<String> namespaces = new LinkedHashSet<>(clients.namespaces());
		namespaces.addAll(properties.getNamespaces().keySet());
		Map<String, String> prefixes = new LinkedHashMap<>();
		for (String namespace : namespaces) {
			LockServerProperties.Namespace settings = properties.getNamespaces().get(namespace);
			String configured = (settings != null) ? settings.getKeyPrefix() : null;
			String prefix = (configured != null) ? configured : DEFAULT_PREFIX + namespace + ":";
			String property = "lock.server.namespaces." + namespace + ".key-prefix";
			if (prefix.isEmpty()) {
				throw new IllegalStateException(property + " must not be empty: the namespace would share every key");
			}
			prefixes.forEach((other, otherPrefix) -> {
				if (prefix.startsWith(otherPrefix) || otherPrefix.startsWith(prefix)) {
					throw new IllegalStateException(
							property + " ('" + prefix + "') overlaps the key prefix of namespace '" + other + "' ('"
									+ otherPrefix + "'): give each namespace a prefix of its own");
				}
			});
			if (prefix.startsWith(applicationPrefix) || applicationPrefix.startsWith(prefix)) {
				if (settings == null || !settings.isSharesApplicationKeys()) {
					throw new IllegalStateException(property + " ('" + prefix
							+ "') overlaps the applications' lock.key-prefix ('" + applicationPrefix
							+ "'): its clients could take the applications' locks, idempotency records and job locks. "
							+ "Set lock.server.namespaces." + namespace
							+ ".shares-application-keys=true if that is meant");
				}
				logger.warn("Namespace '" + namespace + "' shares the applications' keys under '" + prefix
						+ "': its clients can take and see every application lock under it");
			}
			prefixes.put(namespace, prefix);
		}
		prefixes.keySet().retainAll(clients.namespaces());
		return prefixes;
	}

	/**
	 * Return the locks of a namespace that a client is bound to.
	 * @param namespace the namespace
	 * @return its locks
	 */
	DetachedLockOperations get(String namespace) {
		LockTemplate locks = this.locks.get(namespace);
		if (locks == null) {
			throw new IllegalStateException("No client is bound to namespace '" + namespace + "'");
		}
		return locks;
	}

	/**
	 * Return the locks of a namespace for acquisitions that wait without a thread.
	 * @param namespace the namespace
	 * @return its locks
	 */
	ReactiveLockTemplate waiting(String namespace) {
		ReactiveLockTemplate locks = this.waiting.get(namespace);
		if (locks == null) {
			throw new IllegalStateException("No client is bound to namespace '" + namespace + "'");
		}
		return locks;
	}

	@Override
	public void destroy() {
		this.locks.values().forEach(LockTemplate::destroy);
	}

}
