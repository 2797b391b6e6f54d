package dev.lockstarter.store.memcached;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.command.BinaryCommandFactory;

/**
 * The clients that a test opens on one Memcached server, each for a store of its own (an
 * application instance), on the binary protocol with a 2 s operation timeout; closed
 * together.
 */
final class MemcachedTestClients implements AutoCloseable {

	private final List<MemcachedClient> clients = new ArrayList<>();

	/**
	 * Open a client of its own.
	 * @param server the server's address
	 * @return the client
	 */
	MemcachedClient open(InetSocketAddress server) {
		XMemcachedClientBuilder builder = new XMemcachedClientBuilder(List.of(server));
		builder.setCommandFactory(new BinaryCommandFactory());
		builder.setOpTimeout(2000);
		try {
			MemcachedClient client = builder.build();
			this.clients.add(client);
			return client;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void close() throws IOException {
		for (MemcachedClient client : this.clients) {
			client.shutdown();
		}
		this.clients.clear();
	}

}
