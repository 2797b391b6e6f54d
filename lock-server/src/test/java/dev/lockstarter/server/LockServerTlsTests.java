package dev.lockstarter.server;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.redis.RedisServerExtension;
import dev.lockstarter.test.redis.RedisTls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The lock server over HTTPS, configured with a Spring Boot PEM SSL bundle as
 * docs/lock-server.md shows, with a certificate made by {@code openssl}.
 */
class LockServerTlsTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void servesLocksOverTlsWithAnSslBundle() throws Exception {
		try (RedisTls tls = RedisTls.generate();
				LockServers servers = LockServers.onRedis(1, redis.port(),
						"spring.ssl.bundle.pem.lock-server.keystore.certificate=file:" + tls.certificate(),
						"spring.ssl.bundle.pem.lock-server.keystore.private-key=file:" + tls.privateKey(),
						"server.ssl.bundle=lock-server")) {
			String url = servers.url(0, "https") + "/v1/namespaces/tests/locks/over-tls";
			HttpClient trusting = HttpClient.newBuilder().sslContext(trusting(tls)).build();
			HttpResponse<String> acquired = trusting.send(HttpRequest.newBuilder(URI.create(url))
				.header("Authorization", "Bearer " + LockServers.ALPHA_KEY)
				.POST(HttpRequest.BodyPublishers.noBody())
				.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(acquired.statusCode()).isEqualTo(201);
			assertThat(acquired.body()).contains("\"ownerToken\"");
			// A client that does not trust the certificate never gets to send its key
			HttpClient untrusting = HttpClient.newHttpClient();
			assertThatExceptionOfType(SSLHandshakeException.class).isThrownBy(() -> untrusting
				.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()));
			HttpResponse<String> plain = HttpClient.newHttpClient()
				.send(HttpRequest.newBuilder(URI.create(url.replace("https:", "http:"))).build(),
						HttpResponse.BodyHandlers.ofString());
			assertThat(plain.statusCode()).isEqualTo(400);
		}
	}

	private static SSLContext trusting(RedisTls tls) throws Exception {
		KeyStore trustStore = KeyStore.getInstance(KeyStore.getDefaultType());
		trustStore.load(null, null);
		try (InputStream in = Files.newInputStream(tls.certificate())) {
			trustStore.setCertificateEntry("server", CertificateFactory.getInstance("X.509").generateCertificate(in));
		}
		TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
		trust.init(trustStore);
		SSLContext context = SSLContext.getInstance("TLS");
		context.init(null, trust.getTrustManagers(), null);
		return context;
	}

}
