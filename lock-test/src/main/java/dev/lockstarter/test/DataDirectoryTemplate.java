package dev.lockstarter.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import dev.lockstarter.core.Internal;
import org.springframework.util.FileSystemUtils;

/**
 * A database server's new data directory, made once per JVM and copied for each server
 * that needs one. Making it ({@code initdb}, {@code mariadb-install-db}) took longer than
 * starting the server on it: on two busy cores, a PostgreSQL start took 1.4 to 1.6 s with
 * {@code initdb} and 0.6 s on a copy, a MariaDB start 2.6 to 4.7 s with the installer and
 * 0.2 to 0.3 s on a copy. A copy keeps the files' permissions and, when run as root,
 * their owner, as the servers require.
 * <p>
 * The templates are deleted when the JVM exits.
 *
 * @since 0.1.0
 */
@Internal
public final class DataDirectoryTemplate {

	/** Each template's data directory, in a directory of its own, by name. */
	private static final Map<String, Template> templates = new ConcurrentHashMap<>();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(
					() -> templates.values()
						.forEach((template) -> FileSystemUtils.deleteRecursively(template.directory().toFile())),
					"data-templates"));
	}

	private DataDirectoryTemplate() {
	}

	/**
	 * Copy the template named {@code name} to {@code target}, making it first if this JVM
	 * has not made it yet.
	 * @param name what the template is made of: the same name must always make the same
	 * directory (name the binaries and options that make it)
	 * @param maker makes a new data directory: it is given a new empty directory, where
	 * it may run its commands, and the path in it where the data directory goes
	 * @param target where the copy goes; must not exist yet
	 */
	public static void copy(String name, BiConsumer<Path, Path> maker, Path target) {
		Path template = template(name, maker);
		try {
			copyTree(template, target);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not copy the data directory " + template + " to " + target, ex);
		}
	}

	private static synchronized Path template(String name, BiConsumer<Path, Path> maker) {
		Template made = templates.get(name);
		if (made != null) {
			return made.data();
		}
		Path directory;
		try {
			directory = Files.createTempDirectory("data-template-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a directory for a data directory template", ex);
		}
		Path data = directory.resolve("data");
		try {
			maker.accept(directory, data);
		}
		catch (RuntimeException ex) {
			FileSystemUtils.deleteRecursively(directory.toFile());
			throw ex;
		}
		templates.put(name, new Template(directory, data));
		return data;
	}

	private static void copyTree(Path source, Path target) throws IOException {
		Files.walkFileTree(source, new SimpleFileVisitor<>() {

			@Override
			public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes)
					throws IOException {
				Files.copy(directory, target.resolve(source.relativize(directory)), StandardCopyOption.COPY_ATTRIBUTES,
						LinkOption.NOFOLLOW_LINKS);
				return FileVisitResult.CONTINUE;
			}

			@Override
			public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
				Files.copy(file, target.resolve(source.relativize(file)), StandardCopyOption.COPY_ATTRIBUTES,
						LinkOption.NOFOLLOW_LINKS);
				return FileVisitResult.CONTINUE;
			}

		});
	}

	private record Template(Path directory, Path data) {
	}

}
