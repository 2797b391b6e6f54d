package dev.lockstarter.store.redis;

/**
 * Lock keys as they may appear in log messages. A key is user data, often built from
 * request parameters: written as is, a CR or LF in it could forge log lines. Every
 * control character (and the Unicode line and paragraph separators) is written as an
 * escape: {@code \n}, {@code \r}, {@code \t}, or a backslash, {@code u} and four hex
 * digits; the backslash itself is doubled, so that the logged text maps back to one key.
 */
final class LoggedKeys {

	private LoggedKeys() {
	}

	/**
	 * Return a key with its control characters escaped, quoted.
	 * @param key the lock key
	 * @return the key to put in a log message, such as {@code 'lock:a\nb'}
	 */
	static String quote(String key) {
		StringBuilder quoted = new StringBuilder(key.length() + 2).append('\'');
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			switch (c) {
				case '\n' -> quoted.append("\\n");
				case '\r' -> quoted.append("\\r");
				case '\t' -> quoted.append("\\t");
				case '\\' -> quoted.append("\\\\");
				default -> {
					if (Character.isISOControl(c) || c == 0x2028 || c == 0x2029) {
						quoted.append(String.format("\\u%04x", (int) c));
					}
					else {
						quoted.append(c);
					}
				}
			}
		}
		return quoted.append('\'').toString();
	}

}
