package dev.lockstarter.test.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

import org.springframework.util.FileSystemUtils;

/**
 * A self-signed certificate and its private key, made for a test server on loopback
 * ({@code CN=localhost}, subject alternative names {@code IP:127.0.0.1} and
 * {@code DNS:localhost}), as PEM files in a temporary directory, for
 * {@link RedisServer#startWithTls(RedisTls, String...)}.
 * <p>
 * The certificate is generated with the {@code openssl} command line tool, which must be
 * on the {@code PATH} (Debian: {@code apt-get install openssl}). It is valid for two
 * days. Clients trust it as their only certificate authority: {@link #certificate()} as a
 * PEM file (for example for Spring Boot's
 * {@code spring.ssl.bundle.pem.*.truststore.certificate}), or {@link #socketFactory()} in
 * Java.
 * <p>
 * {@link #close()} deletes the files.
 *
 * @since 0.1.0
 */
public final class RedisTls implements AutoCloseable {

	private final Path directory;

	private final SSLSocketFactory socketFactory;

	private RedisTls(Path directory, SSLSocketFactory socketFactory) {
		this.directory = directory;
		this.socketFactory = socketFactory;
	}

	/**
	 * Generate a certificate and key.
	 * @return the generated files
	 * @throws IllegalStateException if {@code openssl} is missing or fails
	 */
	public static RedisTls generate() {
		Path directory;
		try {
			directory = Files.createTempDirectory("redis-tls-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a directory for TLS files", ex);
		}
		try {
			Path certificate = directory.resolve("server.crt");
			Path key = directory.resolve("server.key");
			run(directory,
					List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
							"-nodes", "-keyout", key.toString(), "-out", certificate.toString(), "-days", "2", "-subj",
							"/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"));
			return new RedisTls(directory, socketFactory(certificate));
		}
		catch (RuntimeException ex) {
			FileSystemUtils.deleteRecursively(directory.toFile());
			throw ex;
		}
	}

	/**
	 * Return the self-signed certificate, in PEM, which clients trust as their
	 * certificate authority.
	 * @return the certificate file
	 */
	public Path certificate() {
		return this.directory.resolve("server.crt");
	}

	/**
	 * Return the server's private key, unencrypted PEM.
	 * @return the key file
	 */
	public Path privateKey() {
		return this.directory.resolve("server.key");
	}

	/**
	 * Return a socket factory that trusts only {@link #certificate()}.
	 * @return the socket factory
	 */
	public SSLSocketFactory socketFactory() {
		return this.socketFactory;
	}

	/**
	 * Delete the files. Calling it again does nothing.
	 */
	@Override
	public void close() {
		FileSystemUtils.deleteRecursively(this.directory.toFile());
	}

	@Override
	public String toString() {
		return "RedisTls[" + this.directory + "]";
	}

	private static SSLSocketFactory socketFactory(Path certificate) {
		try (InputStream in = Files.newInputStream(certificate)) {
			Certificate ca = CertificateFactory.getInstance("X.509").generateCertificate(in);
			KeyStore trustStore = KeyStore.getInstance(KeyStore.getDefaultType());
			trustStore.load(null, null);
			trustStore.setCertificateEntry("redis", ca);
			TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
			trust.init(trustStore);
			SSLContext context = SSLContext.getInstance("TLS");
			context.init(null, trust.getTrustManagers(), null);
			return context.getSocketFactory();
		}
		catch (IOException | GeneralSecurityException ex) {
			throw new IllegalStateException("Could not load the generated certificate " + certificate, ex);
		}
	}

	private static void run(Path directory, List<String> command) {
		Process process;
		try {
			process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run 'openssl' to generate a test certificate: " + ex.getMessage()
					+ ". Install it, for example with 'apt-get install openssl'", ex);
		}
		try {
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
				process.destroyForcibly();
				throw new IllegalStateException("'" + String.join(" ", command) + "' failed:\n" + output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			process.destroyForcibly();
			throw new IllegalStateException("Interrupted while generating a test certificate", ex);
		}
	}

}
