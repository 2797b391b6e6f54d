package dev.lockstarter.sample;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

import dev.lockstarter.sample.payment.PaymentRepository;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The sample app, plus a hook that stops the first payment at a chosen point, prints
 * {@link #MARKER} and sleeps, so that a test can kill this JVM exactly there: run in a
 * child JVM by {@link IdempotentPaymentsCrashWithPostgresTests}.
 * <p>
 * {@code sample.test.crash-at=write}: right after the payment's row is written, before
 * its transaction commits. {@code sample.test.crash-at=commit}: right after the
 * transaction that wrote the payment committed (in transactional idempotency mode, the
 * request's transaction, which also holds the kept response), before the response reaches
 * the client.
 */
public final class CrashingSampleApplication {

	static final String MARKER = "CRASH-POINT-REACHED";

	private CrashingSampleApplication() {
	}

	public static void main(String[] args) {
		// Added by an initializer, not as a @Configuration class, which the sample's
		// component scan would pick up in every other test
		new SpringApplicationBuilder(SampleApplication.class)
			.initializers((context) -> context.getBeanFactory()
				.addBeanPostProcessor(CrashHook
					.crashAfterThePaymentsWrite(context.getEnvironment().getProperty("sample.test.crash-at"))))
			.run(args);
	}

	static void stopHere(String point) {
		System.out.println(MARKER + " " + point);
		System.out.flush();
		try {
			Thread.sleep(120_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		throw new IllegalStateException("Not killed at the crash point " + point);
	}

	static final class CrashHook {

		private CrashHook() {
		}

		static BeanPostProcessor crashAfterThePaymentsWrite(String crashAt) {
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					if (!(bean instanceof PaymentRepository payments)) {
						return bean;
					}
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
									crash(crashAt);
								}
								return result;
							});
				}

			};
		}

		private static void crash(String crashAt) {
			if ("write".equals(crashAt)) {
				stopHere("after the payment's write, before its commit");
			}
			else if ("commit".equals(crashAt)) {
				TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

					@Override
					public void afterCommit() {
						stopHere("after the commit of the payment's transaction");
					}

				});
			}
			else {
				throw new IllegalArgumentException("Unknown crash point " + crashAt);
			}
		}

	}

}
