package dev.lockstarter.test.etcd;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * Finds the {@code etcd} binary: in the directory named by the
 * {@value EtcdServer#BIN_PROPERTY} system property, else on the {@code PATH}, in
 * {@code /usr/bin} (Debian's and Ubuntu's {@code etcd-server} package) or in
 * {@code /usr/local/bin} (the release archives).
 */
final class EtcdBinary {

	private EtcdBinary() {
	}

	/**
	 * Return the binary.
	 * @param what what is being started, for the message
	 * @return the binary
	 * @throws IllegalStateException if there is none, naming what to install
	 */
	static Path find(String what) {
		List<String> directories = new ArrayList<>();
		String path = System.getenv("PATH");
		if (path != null) {
			directories.addAll(List.of(path.split(File.pathSeparator)));
		}
		directories.addAll(List.of("/usr/bin", "/usr/local/bin"));
		return find(what, System.getProperty(EtcdServer.BIN_PROPERTY), directories);
	}

	/**
	 * Return the binary in the configured directory, else in the first of the given
	 * directories that holds one.
	 */
	static Path find(String what, @Nullable String configured, List<String> directories) {
		if (StringUtils.hasText(configured)) {
			Path binary = Path.of(configured.strip(), "etcd");
			Assert.state(Files.isRegularFile(binary) && Files.isExecutable(binary),
					() -> "-D" + EtcdServer.BIN_PROPERTY + " names '" + configured.strip() + "', which holds no etcd");
			return binary;
		}
		for (String directory : directories) {
			if (StringUtils.hasText(directory)) {
				Path candidate = Path.of(directory, "etcd");
				if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
					return candidate;
				}
			}
		}
		throw new IllegalStateException("Cannot start " + what + " for tests: no etcd on the PATH, in /usr/bin or in "
				+ "/usr/local/bin. Install etcd 3.4 or later, for example with 'apt-get install etcd-server' "
				+ "(Debian/Ubuntu) or 'brew install etcd' (macOS), or name the directory of etcd with -D"
				+ EtcdServer.BIN_PROPERTY + "=/path/to/bin");
	}

}
