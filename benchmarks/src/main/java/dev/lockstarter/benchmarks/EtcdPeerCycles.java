package dev.lockstarter.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;

import dev.lockstarter.store.etcd.EtcdClients;
import dev.lockstarter.store.etcd.EtcdLockStore;
import dev.lockstarter.test.etcd.EtcdServer;

/**
 * The locks on etcd that {@link FailoverStoreCycleBenchmarks} measures side by side, each
 * with its own jetcd client to the same kind of fresh single-member server:
 * <ul>
 * <li>{@link #lockTemplate this starter}: {@code LockTemplate} on {@code EtcdLockStore},
 * one transaction to acquire and one to release (its leases, shared by keys of like
 * time-to-lives, are granted once), on a client built by {@code EtcdClients}, which sends
 * each request from the calling thread;</li>
 * <li>jetcd's client of etcd's own lock service ({@code v3lock}), used the way etcd's
 * concurrency package uses it: one session lease of {@link #SESSION_TTL}, granted once
 * and kept alive by the client, to which every lock is bound; a cycle is one {@code Lock}
 * and one {@code Unlock} call, on a client with jetcd's defaults, which hands each
 * request to a thread pool of its own. The lock service waits for a held lock rather than
 * failing, which an uncontended cycle never meets.</li>
 * <li>{@link #twoTransactions the reference}: the two transactions of this starter's
 * cycle and nothing else, sent directly on a client built by {@code EtcdClients}: a write
 * of the key if it does not exist, then a delete if its value is still the caller's
 * token, both under one lease granted at the start. No lock of this design can do less
 * per cycle.</li>
 * </ul>
 */
final class EtcdPeerCycles {

	/** The session lease's time-to-live, etcd's concurrency package's default. */
	static final Duration SESSION_TTL = Duration.ofSeconds(60);

	/**
	 * The reference's one lease: longer than any trial, so it never needs keeping alive.
	 */
	static final Duration REFERENCE_LEASE_TTL = Duration.ofMinutes(30);

	private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

	/** The store's timeout: {@code lock.etcd.timeout}'s default. */
	static final Duration STORE_TIMEOUT = Duration.ofSeconds(2);

	private EtcdPeerCycles() {
	}

	/**
	 * This starter: {@code LockTemplate} on {@code EtcdLockStore}, its client built by
	 * {@code EtcdClients} with the store's default timeout.
	 * @param server the server
	 * @return the cycle
	 */
	static LockCycle lockTemplate(EtcdServer server) {
		Client client = EtcdClients.client(STORE_TIMEOUT, server.endpoint());
		EtcdLockStore store = new EtcdLockStore(client, STORE_TIMEOUT);
		return LockCycle.lockTemplate(store, PostgresPeerCycles.TTL, () -> {
			store.close();
			client.close();
		});
	}

	static LockCycle jetcdLock(EtcdServer server) {
		Client client = Client.builder().endpoints(server.endpoint()).build();
		SessionLease lease = SessionLease.grant(client);
		Lock locks = client.getLockClient();
		return new LockCycle() {

			@Override
			public boolean cycle(String key) {
				ByteSequence owned = await(locks.lock(ByteSequence.from(key, StandardCharsets.UTF_8), lease.id()))
					.getKey();
				await(locks.unlock(owned));
				return true;
			}

			@Override
			public void close() {
				lease.keepAlive().close();
				client.close();
			}

		};
	}

	static LockCycle twoTransactions(EtcdServer server) {
		Client client = EtcdClients.client(STORE_TIMEOUT, server.endpoint());
		KV kv = client.getKVClient();
		long lease = await(client.getLeaseClient().grant(REFERENCE_LEASE_TTL.toSeconds())).getID();
		ByteSequence token = ByteSequence.from(UUID.randomUUID().toString(), StandardCharsets.UTF_8);
		return new LockCycle() {

			@Override
			public boolean cycle(String key) {
				ByteSequence lockKey = ByteSequence.from(key, StandardCharsets.UTF_8);
				boolean acquired = await(kv.txn()
					.If(new Cmp(lockKey, Cmp.Op.EQUAL, CmpTarget.version(0)))
					.Then(Op.put(lockKey, token, PutOption.builder().withLeaseId(lease).build()))
					.Else(Op.get(lockKey, GetOption.DEFAULT))
					.commit()).isSucceeded();
				boolean released = await(kv.txn()
					.If(new Cmp(lockKey, Cmp.Op.EQUAL, CmpTarget.value(token)))
					.Then(Op.delete(lockKey, DeleteOption.DEFAULT))
					.commit()).isSucceeded();
				return acquired && released;
			}

			@Override
			public void close() {
				client.close();
			}

		};
	}

	static <T> T await(CompletableFuture<T> call) {
		try {
			return call.get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new IllegalStateException("etcd call failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	/**
	 * A lease of {@link #SESSION_TTL} that the client keeps alive until it is closed, as
	 * etcd's concurrency package's session does.
	 *
	 * @param id the lease's id
	 * @param keepAlive the keep-alive stream, to close
	 */
	record SessionLease(long id, CloseableClient keepAlive) {

		static SessionLease grant(Client client) {
			long id = await(client.getLeaseClient().grant(SESSION_TTL.toSeconds())).getID();
			return new SessionLease(id, client.getLeaseClient().keepAlive(id, new StreamObserver<>() {

				@Override
				public void onNext(LeaseKeepAliveResponse response) {
				}

				@Override
				public void onError(Throwable error) {
				}

				@Override
				public void onCompleted() {
				}

			}));
		}

	}

}
