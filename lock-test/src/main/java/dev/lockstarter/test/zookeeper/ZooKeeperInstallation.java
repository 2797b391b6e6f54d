package dev.lockstarter.test.zookeeper;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * Where the ZooKeeper classes are, and the {@code java} command that runs them.
 * <p>
 * An installation is a directory holding either {@code lib/zookeeper-*.jar} (an Apache
 * ZooKeeper binary distribution, whose {@code lib} holds every dependency) or
 * {@code zookeeper.jar} (a directory of Debian's jars, {@code /usr/share/java}, where the
 * jar's manifest names its dependencies). Debian's jars come without an SLF4J binding:
 * {@code slf4j-simple.jar} from the same directory is added when present, so that the
 * server's log reaches its output.
 */
final class ZooKeeperInstallation {

	static final String SERVER_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";

	private static final Path DEBIAN = Path.of("/usr/share/java");

	private final String java;

	private final String classpath;

	private ZooKeeperInstallation(String java, String classpath) {
		this.java = java;
		this.classpath = classpath;
	}

	/**
	 * Find the installation named by {@value ZooKeeperServer#HOME_PROPERTY}, else
	 * Debian's.
	 * @return the installation
	 * @throws IllegalStateException if there is none, with what to install
	 */
	static ZooKeeperInstallation find() {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		String configured = System.getProperty(ZooKeeperServer.HOME_PROPERTY);
		if (StringUtils.hasText(configured)) {
			Path home = Path.of(configured.strip());
			String classpath = classpath(home);
			Assert.state(classpath != null, () -> "-D" + ZooKeeperServer.HOME_PROPERTY + " names '" + home
					+ "', which holds neither lib/zookeeper-*.jar (an Apache ZooKeeper distribution) nor zookeeper.jar");
			return new ZooKeeperInstallation(java, classpath);
		}
		String classpath = classpath(DEBIAN);
		if (classpath == null) {
			throw new IllegalStateException("Cannot start ZooKeeper for tests: no " + DEBIAN.resolve("zookeeper.jar")
					+ ". Install ZooKeeper, for example with 'apt-get install zookeeper' (Debian/Ubuntu), or name "
					+ "an Apache ZooKeeper distribution (the directory holding lib/) with -D"
					+ ZooKeeperServer.HOME_PROPERTY + "=/path/to/apache-zookeeper-bin");
		}
		return new ZooKeeperInstallation(java, classpath);
	}

	/**
	 * Return the command line that runs a main class of the installation.
	 * @param jvmOptions the options of the JVM
	 * @param mainClass the main class
	 * @param arguments the arguments of the main class
	 * @return the command line
	 */
	List<String> command(List<String> jvmOptions, String mainClass, List<String> arguments) {
		List<String> command = new ArrayList<>();
		command.add(this.java);
		command.addAll(jvmOptions);
		command.addAll(List.of("-cp", this.classpath, mainClass));
		command.addAll(arguments);
		return command;
	}

	private static @Nullable String classpath(Path home) {
		Path lib = home.resolve("lib");
		if (hasServerJar(lib)) {
			Path conf = home.resolve("conf");
			return Files.isDirectory(conf) ? lib.resolve("*") + File.pathSeparator + conf : lib.resolve("*").toString();
		}
		Path jar = home.resolve("zookeeper.jar");
		if (Files.isRegularFile(jar)) {
			Path binding = home.resolve("slf4j-simple.jar");
			return Files.isRegularFile(binding) ? jar + File.pathSeparator + binding : jar.toString();
		}
		return null;
	}

	private static boolean hasServerJar(Path lib) {
		if (!Files.isDirectory(lib)) {
			return false;
		}
		try (Stream<Path> files = Files.list(lib)) {
			return files.map((file) -> file.getFileName().toString())
				.anyMatch((name) -> name.matches("zookeeper-\\d.*\\.jar"));
		}
		catch (IOException ex) {
			return false;
		}
	}

}
