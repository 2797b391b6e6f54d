package dev.lockstarter.store.zookeeper;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.HashedKeys;
import org.springframework.util.Assert;

/**
 * The node layout of the ZooKeeper store: {@code <base path>/locks/<node name>} for the
 * lock of a key and {@code <base path>/results/<node name>} for the result kept next to
 * it.
 * <p>
 * A node name is the key with every character outside {@code [A-Za-z0-9_:~-]} escaped: an
 * ASCII character as {@code %XX}, any other UTF-16 code unit as {@code %uXXXX}
 * (hexadecimal, upper case). Any string then becomes one valid path segment (no
 * {@code /}, never {@code .} or {@code ..}, no control or non-ASCII characters), and
 * distinct keys get distinct names, unpaired surrogates included. A name longer than
 * {@value #MAX_NAME_LENGTH} characters, or the name of a key that starts with
 * {@link HashedKeys#MARKER}, is that of the key's {@linkplain HashedKeys#hash(String)
 * hash} instead: node names travel in every request and count towards ZooKeeper's
 * {@code jute.maxbuffer}.
 */
final class LockNodes {

	static final int MAX_NAME_LENGTH = 512;

	private static final char[] HEX = "0123456789ABCDEF".toCharArray();

	private final String basePath;

	private final String locksPath;

	private final String resultsPath;

	LockNodes(String basePath) {
		Assert.isTrue(basePath.startsWith("/") && (basePath.length() == 1 || !basePath.endsWith("/")),
				() -> "'basePath' must start with '/' and not end with one, was '" + basePath + "'");
		this.basePath = basePath;
		String root = "/".equals(basePath) ? "" : basePath;
		this.locksPath = root + "/locks";
		this.resultsPath = root + "/results";
	}

	String basePath() {
		return this.basePath;
	}

	String locksPath() {
		return this.locksPath;
	}

	String resultsPath() {
		return this.resultsPath;
	}

	String lockPath(String key) {
		return this.locksPath + "/" + name(key);
	}

	String resultPath(String key) {
		return this.resultsPath + "/" + name(key);
	}

	/**
	 * Return the node name of a lock from the path of a watched event.
	 * @param path the event's path
	 * @return the node name, or {@code null} if the path is not that of a lock
	 */
	@Nullable String lockName(String path) {
		int start = this.locksPath.length() + 1;
		if (path.length() <= start || !path.startsWith(this.locksPath + "/") || path.indexOf('/', start) >= 0) {
			return null;
		}
		return path.substring(start);
	}

	static String name(String key) {
		if (!key.startsWith(HashedKeys.MARKER)) {
			String name = escape(key);
			if (name.length() <= MAX_NAME_LENGTH) {
				return name;
			}
		}
		return escape(HashedKeys.hash(key));
	}

	/**
	 * Return the key whose lock node has this name: the name's escapes decoded.
	 * @param name a node name
	 * @return the key, or {@code null} if the name is that of a hashed key, whose key
	 * cannot be read back, or is not a name that {@link #name(String)} makes
	 */
	static @Nullable String key(String name) {
		StringBuilder key = new StringBuilder(name.length());
		int i = 0;
		while (i < name.length()) {
			char c = name.charAt(i);
			if (c != '%') {
				key.append(c);
				i++;
				continue;
			}
			boolean unicode = i + 1 < name.length() && name.charAt(i + 1) == 'u';
			int start = i + (unicode ? 2 : 1);
			int end = start + (unicode ? 4 : 2);
			if (end > name.length()) {
				return null;
			}
			int unit = 0;
			for (int j = start; j < end; j++) {
				int digit = Character.digit(name.charAt(j), 16);
				if (digit < 0) {
					return null;
				}
				unit = unit * 16 + digit;
			}
			key.append((char) unit);
			i = end;
		}
		String decoded = key.toString();
		// Only the name the store makes of the key: one name, one key
		return (!decoded.startsWith(HashedKeys.MARKER) && name(decoded).equals(name)) ? decoded : null;
	}

	private static String escape(String key) {
		if (key.length() > MAX_NAME_LENGTH) {
			// Too long already: the caller hashes it
			return key;
		}
		StringBuilder name = new StringBuilder(key.length() + 16);
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':'
					|| c == '~' || c == '-') {
				name.append(c);
			}
			else if (c < 0x80) {
				name.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
			}
			else {
				name.append("%u")
					.append(HEX[(c >> 12) & 0xF])
					.append(HEX[(c >> 8) & 0xF])
					.append(HEX[(c >> 4) & 0xF])
					.append(HEX[c & 0xF]);
			}
		}
		return name.toString();
	}

}
