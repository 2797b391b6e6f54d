package dev.lockstarter.test.postgres;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * Where the PostgreSQL binaries of a {@link PostgresServer} are: the directory named by
 * the {@value PostgresServer#BIN_PROPERTY} system property, else the newest version under
 * {@code /usr/lib/postgresql} (Debian, Ubuntu), else the {@code PATH}.
 */
final class PostgresBinaries {

	private PostgresBinaries() {
	}

	/**
	 * Return the directory of the binaries.
	 * @return the directory that holds {@code initdb} and {@code pg_ctl}
	 * @throws IllegalStateException if there is none
	 */
	static Path find() {
		String configured = System.getProperty(PostgresServer.BIN_PROPERTY);
		if (StringUtils.hasText(configured)) {
			Path bin = Path.of(configured.strip());
			Assert.state(Files.isExecutable(bin.resolve("initdb")),
					() -> "-D" + PostgresServer.BIN_PROPERTY + " names '" + bin + "', which holds no initdb");
			return bin;
		}
		Path debian = newestDebianBinaries();
		if (debian != null) {
			return debian;
		}
		String path = System.getenv("PATH");
		if (path != null) {
			for (String directory : path.split(File.pathSeparator)) {
				if (StringUtils.hasText(directory) && Files.isExecutable(Path.of(directory, "initdb"))
						&& Files.isExecutable(Path.of(directory, "pg_ctl"))) {
					return Path.of(directory);
				}
			}
		}
		throw new IllegalStateException("Cannot start a PostgreSQL server for tests: no initdb and pg_ctl in "
				+ "/usr/lib/postgresql/*/bin or on the PATH. Install PostgreSQL, for example with "
				+ "'apt-get install postgresql' (Debian/Ubuntu) or 'brew install postgresql' (macOS), or name the "
				+ "directory of its binaries with -D" + PostgresServer.BIN_PROPERTY + "=/path/to/bin");
	}

	private static @Nullable Path newestDebianBinaries() {
		Path root = Path.of("/usr/lib/postgresql");
		if (!Files.isDirectory(root)) {
			return null;
		}
		try (Stream<Path> versions = Files.list(root)) {
			return versions.filter((version) -> Files.isExecutable(version.resolve("bin/initdb")))
				.max(Comparator.comparingInt(PostgresBinaries::majorVersion))
				.map((version) -> version.resolve("bin"))
				.orElse(null);
		}
		catch (IOException ex) {
			return null;
		}
	}

	private static int majorVersion(Path directory) {
		try {
			return Integer.parseInt(directory.getFileName().toString());
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

}
