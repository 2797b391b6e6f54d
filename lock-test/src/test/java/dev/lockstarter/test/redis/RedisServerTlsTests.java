package dev.lockstarter.test.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link RedisServer#startWithTls} and {@link RedisTls}.
 */
class RedisServerTlsTests {

	private static RedisTls tls;

	@BeforeAll
	static void generateCertificate() {
		tls = RedisTls.generate();
	}

	@AfterAll
	static void deleteCertificate() {
		tls.close();
	}

	@Test
	void tlsServerAnswersOverTlsOnlyAndSurvivesARestart() {
		try (RedisServer server = RedisServer.startWithTls(tls)) {
			assertThat(server.url()).isEqualTo("rediss://127.0.0.1:" + server.port());
			assertThat(server.command("CONFIG", "GET", "port")).isEqualTo("port\n0");
			assertThat(server.command("SET", "key", "value")).isEqualTo("OK");
			assertThatExceptionOfType(IOException.class)
				.isThrownBy(() -> Resp.send(server.host(), server.port(), Duration.ofSeconds(2), "PING"));
			server.restart();
			assertThat(server.command("EXISTS", "key")).isEqualTo("0");
		}
	}

	@Test
	void certificateNamesTheLoopbackAddress() throws Exception {
		assertThat(tls.certificate()).exists();
		assertThat(tls.privateKey()).exists();
		X509Certificate certificate;
		try (InputStream in = Files.newInputStream(tls.certificate())) {
			certificate = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
		}
		// 7: an IP address
		assertThat(certificate.getSubjectAlternativeNames()).contains(List.of(7, "127.0.0.1"));
	}

}
