package dev.lockstarter.test.redis;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.net.SocketFactory;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.ServerProcess;

/**
 * How to run {@code redis-server} and tell that it is ready: the command line of a server
 * without persistence on loopback, with TLS if it has a certificate, and a {@code PING}
 * probe that checks the answering server is this process.
 */
record RedisServerDefinition(Path binary, List<String> extraArgs,
		@Nullable RedisTls tls) implements ServerProcess.Definition {

	@Override
	public String name() {
		return "redis-server";
	}

	@Override
	public List<String> command(Path directory, int port) {
		List<String> command = new ArrayList<>(List.of(this.binary.toString(), "--port", Integer.toString(port),
				"--bind", ServerProcess.HOST, "--protected-mode", "no", "--save", "", "--appendonly", "no",
				"--daemonize", "no", "--dir", directory.toString()));
		if (this.tls != null) {
			command.set(2, "0");
			command.addAll(List.of("--tls-port", Integer.toString(port), "--tls-cert-file",
					this.tls.certificate().toString(), "--tls-key-file", this.tls.privateKey().toString(),
					"--tls-ca-cert-file", this.tls.certificate().toString(), "--tls-auth-clients", "no"));
		}
		command.addAll(this.extraArgs);
		return command;
	}

	@Override
	public boolean probe(Process process, int port) throws IOException {
		SocketFactory socketFactory = (this.tls != null) ? this.tls.socketFactory() : SocketFactory.getDefault();
		// A TLS handshake takes longer than a plain PING
		Duration timeout = (this.tls != null) ? Duration.ofSeconds(1) : Duration.ofMillis(100);
		try {
			if (!"PONG".equals(Resp.send(socketFactory, ServerProcess.HOST, port, timeout, "PING"))) {
				return false;
			}
			String info = Resp.send(socketFactory, ServerProcess.HOST, port, Duration.ofSeconds(1), "INFO", "server");
			if (info != null && info.contains("process_id:" + process.pid() + "\r\n")) {
				return true;
			}
		}
		catch (Resp.ErrorReplyException ex) {
			// Still loading
			return false;
		}
		// Someone else's server answered on our port: ours cannot bind it
		throw new ServerProcess.PortTakenException();
	}

}
