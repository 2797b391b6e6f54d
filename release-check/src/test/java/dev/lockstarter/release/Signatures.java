package dev.lockstarter.release;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Checks a detached OpenPGP signature with {@code gpg --verify}, against the keys of the
 * keyring the release build signed with ({@code GNUPGHOME}, or the user's).
 */
final class Signatures {

	static final String GOOD = "good signature";

	private Signatures() {
	}

	/**
	 * {@link #GOOD}, or what gpg said.
	 */
	static String verify(byte[] content, byte[] signature) throws IOException, InterruptedException {
		Path directory = Files.createTempDirectory("signature");
		try {
			Path file = Files.write(directory.resolve("file"), content);
			Path asc = Files.write(directory.resolve("file.asc"), signature);
			Process gpg = new ProcessBuilder("gpg", "--batch", "--status-fd", "1", "--verify", asc.toString(),
					file.toString())
				.redirectErrorStream(true)
				.start();
			if (!gpg.waitFor(30, TimeUnit.SECONDS)) {
				gpg.destroyForcibly();
				return "gpg did not answer within 30 s";
			}
			String output = new String(gpg.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			return (gpg.exitValue() == 0 && output.contains("[GNUPG:] VALIDSIG")) ? GOOD : output;
		}
		finally {
			try (var files = Files.list(directory)) {
				for (Path file : files.toList()) {
					Files.delete(file);
				}
			}
			Files.delete(directory);
		}
	}

}
