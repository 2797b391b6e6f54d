package dev.lockstarter.release;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * The names of a jar's entries.
 */
final class ArchiveEntries {

	private ArchiveEntries() {
	}

	static Set<String> of(byte[] jar) throws IOException {
		Set<String> names = new TreeSet<>();
		try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(jar))) {
			for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
				names.add(entry.getName());
			}
		}
		return names;
	}

}
