package dev.lockstarter.idempotency;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Internal;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.util.Assert;

/**
 * The transaction in which {@link IdempotentRequestInterceptor} runs an idempotent
 * request's handler and keeps its response, so that the handler's own database writes and
 * the kept response are committed together or not at all (see
 * {@link IdempotentRequestInterceptor#setTransactions(IdempotentRequestTransactions)}).
 * <p>
 * Holds the {@link PlatformTransactionManager} of the database that also holds the lock
 * store's results; kept in a class of its own so that the interceptor needs
 * {@code spring-tx} only when this mode is used.
 *
 * @since 0.1.0
 */
@Internal
public final class IdempotentRequestTransactions {

	private final PlatformTransactionManager transactionManager;

	private final TransactionDefinition definition;

	/**
	 * Create the transactions of idempotent requests, with
	 * {@link TransactionDefinition#PROPAGATION_REQUIRED PROPAGATION_REQUIRED} and the
	 * transaction manager's default isolation and timeout.
	 * @param transactionManager the transaction manager of the database that holds both
	 * the handlers' writes and the lock store's results
	 */
	public IdempotentRequestTransactions(PlatformTransactionManager transactionManager) {
		Assert.notNull(transactionManager, "'transactionManager' must not be null");
		this.transactionManager = transactionManager;
		DefaultTransactionDefinition definition = new DefaultTransactionDefinition(
				TransactionDefinition.PROPAGATION_REQUIRED);
		definition.setName(IdempotentRequestInterceptor.class.getName());
		this.definition = definition;
	}

	/**
	 * Return the transaction manager.
	 * @return the transaction manager
	 */
	public PlatformTransactionManager getTransactionManager() {
		return this.transactionManager;
	}

	Transaction begin() {
		return new Transaction(this.transactionManager.getTransaction(this.definition));
	}

	/**
	 * One request's transaction, bound to the request thread from {@code preHandle} to
	 * {@code afterCompletion}.
	 */
	final class Transaction {

		private final TransactionStatus status;

		Transaction(TransactionStatus status) {
			this.status = status;
		}

		boolean isRollbackOnly() {
			return this.status.isRollbackOnly();
		}

		void commit() {
			IdempotentRequestTransactions.this.transactionManager.commit(this.status);
		}

		/**
		 * Roll back, unless already completed.
		 * @return the failure of the rollback, or {@code null}
		 */
		@Nullable RuntimeException rollback() {
			if (this.status.isCompleted()) {
				return null;
			}
			try {
				IdempotentRequestTransactions.this.transactionManager.rollback(this.status);
				return null;
			}
			catch (RuntimeException ex) {
				return ex;
			}
		}

	}

}
