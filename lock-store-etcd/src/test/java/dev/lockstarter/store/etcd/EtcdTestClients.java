package dev.lockstarter.store.etcd;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.etcd.jetcd.Client;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;

/**
 * Clients of the test clusters, built as an application would build them.
 */
final class EtcdTestClients {

	/** The timeout of the stores under test: the default of {@code lock.etcd.timeout}. */
	static final Duration TIMEOUT = Duration.ofSeconds(2);

	private EtcdTestClients() {
	}

	static Client client(List<String> endpoints) {
		return EtcdClients.client(TIMEOUT, endpoints.toArray(String[]::new));
	}

	/**
	 * Return a client that counts the unary requests it sends (watches and lease
	 * keep-alive streams aside).
	 */
	static Client countingClient(List<String> endpoints, Duration timeout, AtomicInteger requests) {
		ClientInterceptor counter = new ClientInterceptor() {

			@Override
			public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options,
					Channel next) {
				if (method.getType() == MethodDescriptor.MethodType.UNARY) {
					requests.incrementAndGet();
				}
				return next.newCall(method, options);
			}

		};
		return EtcdClients.builder(timeout).endpoints(endpoints.toArray(String[]::new)).interceptor(counter).build();
	}

}
