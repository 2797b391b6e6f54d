package dev.lockstarter.store.etcd;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.etcd.jetcd.Client;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.etcd.EtcdServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The clients that {@link EtcdClients} builds, on a real etcd server: the store's
 * requests leave from the thread that makes the call, not from a thread of jetcd's pool.
 */
class EtcdClientsTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	static final EtcdServerExtension etcd = new EtcdServerExtension();

	@Test
	void theStoresRequestsAreSentFromTheCallingThread() {
		List<String> senders = new CopyOnWriteArrayList<>();
		ClientInterceptor sender = new ClientInterceptor() {

			@Override
			public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options,
					Channel next) {
				if (method.getType() == MethodDescriptor.MethodType.UNARY) {
					senders.add(Thread.currentThread().getName());
				}
				return next.newCall(method, options);
			}

		};
		try (Client client = EtcdClients.builder(EtcdTestClients.TIMEOUT)
			.endpoints(etcd.endpoint())
			.interceptor(sender)
			.build(); EtcdLockStore store = new EtcdLockStore(client, EtcdTestClients.TIMEOUT)) {
			String token = UUID.randomUUID().toString();
			assertThat(store.tryAcquire("sent-from-the-caller", token, TTL).isAcquired()).isTrue();
			assertThat(store.release("sent-from-the-caller", token)).isTrue();
		}
		// A lease grant, the acquisition and the release
		assertThat(senders).hasSize(3).containsOnly(Thread.currentThread().getName());
	}

}
