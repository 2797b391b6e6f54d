package dev.lockstarter.reliability;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.UUID;

import jakarta.servlet.http.HttpServletRequest;
import org.aopalliance.intercept.MethodInterceptor;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.sample.SampleApplication;
import dev.lockstarter.sample.payment.Payment;
import dev.lockstarter.sample.payment.PaymentRepository;
import dev.lockstarter.store.ResultStoringLockStore;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.core.env.Environment;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * One instance of the sample app in a child JVM of the {@link HttpScenarioRun HTTP
 * scenarios}, with hooks that tell the oracle what happened to each idempotent payment
 * and, when the client asks for it, stop the JVM at a chosen point of that payment
 * ({@link Runtime#halt}, as abrupt as {@code kill -9}: no shutdown hook, no response).
 * <p>
 * Per payment, keyed by its {@code Idempotency-Key}, the oracle ({@link HttpOracle})
 * records when the payment became durable ({@code paid}: its write, or the commit of the
 * transaction that wrote it) and when its response was kept for replays ({@code kept}:
 * the store's {@code putResult} or {@code releaseKeepingResult}, or the commit of the
 * transaction that holds it). A payment paid but never kept is one a retry can pay again:
 * the window that {@code lock.idempotency.transactional} closes.
 * <p>
 * Request headers read by the hooks, sent by the harness's clients on a first attempt
 * only:
 * <ul>
 * <li>{@value #CRASH_HEADER}: {@code write} (right after the payment's row is written,
 * before any commit), {@code paid} (right after the payment is durable) or {@code kept}
 * (right after the store accepted the kept response);</li>
 * <li>{@value #FAULT_HEADER}: {@code late-response}, the negative control: the response
 * is not kept when the request completes, which lets its lock go, but
 * {@value #LATE_RESPONSE_MILLIS} ms later, by a separate lock on the same key.</li>
 * </ul>
 * Arguments: those of the sample app, plus {@code --harness.oracle-host},
 * {@code --harness.oracle-port} and {@code --harness.instance}.
 *
 * @since 0.1.0
 */
public final class HttpInstance {

	/** The request header that names a crash point. */
	public static final String CRASH_HEADER = "X-Harness-Crash";

	/** The request header that names a fault of the negative control. */
	public static final String FAULT_HEADER = "X-Harness-Fault";

	/** The value of {@value #FAULT_HEADER} for the late-response control. */
	public static final String LATE_RESPONSE = "late-response";

	/** How late the late-response control keeps a response. */
	static final long LATE_RESPONSE_MILLIS = 1500;

	private static final String CALL_ATTRIBUTE = HttpInstance.class.getName() + ".call";

	private HttpInstance() {
	}

	/**
	 * Start the sample app with the hooks.
	 * @param args the sample app's arguments and the harness's
	 */
	public static void main(String[] args) {
		new SpringApplicationBuilder(SampleApplication.class)
			.initializers(
					(context) -> context.getBeanFactory().addBeanPostProcessor(new Hooks(context.getEnvironment())))
			.run(args);
	}

	/**
	 * What the hooks know of the idempotent payment the current thread serves.
	 */
	private static final class Call {

		final String key;

		final @Nullable String crash;

		final boolean late;

		@Nullable String paymentId;

		long paidAt;

		Call(String key, @Nullable String crash, boolean late) {
			this.key = key;
			this.crash = crash;
			this.late = late;
		}

		static @Nullable Call current() {
			if (!(RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes)) {
				return null;
			}
			HttpServletRequest request = attributes.getRequest();
			if (request.getAttribute(CALL_ATTRIBUTE) instanceof Call call) {
				return call;
			}
			String key = request.getHeader("Idempotency-Key");
			if (key == null || !request.getRequestURI().startsWith("/api/payments")) {
				return null;
			}
			Call call = new Call(key, request.getHeader(CRASH_HEADER),
					LATE_RESPONSE.equals(request.getHeader(FAULT_HEADER)));
			request.setAttribute(CALL_ATTRIBUTE, call);
			return call;
		}

	}

	private static final class Hooks implements BeanPostProcessor {

		private final Environment environment;

		private @Nullable HttpOracle oracle;

		Hooks(Environment environment) {
			this.environment = environment;
		}

		private synchronized HttpOracle oracle() {
			if (this.oracle == null) {
				this.oracle = new HttpOracle(this.environment.getRequiredProperty("harness.oracle-host"),
						this.environment.getRequiredProperty("harness.oracle-port", Integer.class));
			}
			return this.oracle;
		}

		private String instance() {
			return this.environment.getRequiredProperty("harness.instance");
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (bean instanceof PaymentRepository payments) {
				return Proxy.newProxyInstance(PaymentRepository.class.getClassLoader(),
						new Class<?>[] { PaymentRepository.class }, (proxy, method, arguments) -> {
							Object result;
							try {
								result = method.invoke(payments, arguments);
							}
							catch (InvocationTargetException ex) {
								throw ex.getTargetException();
							}
							if (method.getName().equals("save")) {
								saved((Payment) arguments[0]);
							}
							return result;
						});
			}
			if (bean instanceof ResultStoringLockStore store) {
				// A subclass: the auto-configuration injects the store by its class
				ProxyFactory proxy = new ProxyFactory(bean);
				proxy.setProxyTargetClass(true);
				proxy.addAdvice((MethodInterceptor) (invocation) -> {
					String name = invocation.getMethod().getName();
					if (!name.equals("putResult") && !name.equals("releaseKeepingResult")) {
						return invocation.proceed();
					}
					Object[] arguments = invocation.getArguments();
					return putResult(store, invocation::proceed, (String) arguments[0], (String) arguments[1],
							(byte[]) arguments[2], (Duration) arguments[3], name.equals("releaseKeepingResult"));
				});
				return proxy.getProxy(bean.getClass().getClassLoader());
			}
			return bean;
		}

		private void saved(Payment payment) {
			Call call = Call.current();
			if (call == null) {
				return;
			}
			call.paymentId = payment.paymentId();
			if (TransactionSynchronizationManager.isSynchronizationActive()) {
				// Durable once the transaction commits
				crashIf(call, "write");
				afterCommit(() -> paid(call));
			}
			else {
				// Durable at once: the write is the payment
				paid(call);
				crashIf(call, "write");
			}
		}

		private void paid(Call call) {
			call.paidAt = System.nanoTime();
			oracle().paid(call.key, instance(), String.valueOf(call.paymentId));
			crashIf(call, "paid");
		}

		/**
		 * The store keeps a response ({@code putResult}), or keeps it and releases the
		 * lock in one call ({@code releaseKeepingResult}, which {@code releases}).
		 */
		private Object putResult(ResultStoringLockStore store, Proceed proceed, String key, String token, byte[] result,
				Duration retention, boolean releases) throws Throwable {
			Call call = Call.current();
			if (call == null) {
				return proceed.proceed();
			}
			if (call.late) {
				keepLate(store, key, result, retention);
				if (releases) {
					store.release(key, token);
				}
				return true;
			}
			Object kept;
			try {
				kept = proceed.proceed();
			}
			catch (Throwable ex) {
				oracle().notKept(call.key, instance(), String.valueOf(call.paymentId));
				throw ex;
			}
			if (!Boolean.TRUE.equals(kept)) {
				oracle().notKept(call.key, instance(), String.valueOf(call.paymentId));
			}
			else {
				long keptAt = System.nanoTime();
				afterCommit(() -> oracle().kept(call.key, instance(), String.valueOf(call.paymentId),
						(call.paidAt != 0) ? (keptAt - call.paidAt) / 1000 : -1));
				crashIf(call, "kept");
			}
			return kept;
		}

		/**
		 * The negative control: keep the response later, under a lock of its own, once
		 * the request's lock is gone.
		 */
		private void keepLate(ResultStoringLockStore store, String key, byte[] result, Duration retention) {
			Thread late = new Thread(() -> {
				try {
					Thread.sleep(LATE_RESPONSE_MILLIS);
					String token = UUID.randomUUID().toString();
					if (store.tryAcquire(key, token, Duration.ofSeconds(5)).isAcquired()) {
						try {
							store.putResult(key, token, result, retention);
						}
						finally {
							store.release(key, token);
						}
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				catch (RuntimeException ex) {
					System.err.println("late response not kept: " + ex);
				}
			}, "late-response");
			late.setDaemon(true);
			late.start();
		}

		private void crashIf(Call call, String point) {
			if (point.equals(call.crash)) {
				oracle().crashed(call.key, instance(), point);
				System.out.println("halting at " + point + " of " + call.key);
				System.out.flush();
				Runtime.getRuntime().halt(137);
			}
		}

		/**
		 * Run after the current transaction commits, or now if there is none.
		 */
		private static void afterCommit(Runnable action) {
			if (TransactionSynchronizationManager.isSynchronizationActive()) {
				TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

					@Override
					public void afterCommit() {
						action.run();
					}

				});
			}
			else {
				action.run();
			}
		}

	}

	@FunctionalInterface
	private interface Proceed {

		@Nullable Object proceed() throws Throwable;

	}

}
