package dev.lockstarter.interceptor;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.annotation.OnHolderFailure;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.ReflectionHintsPredicates;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ExclusiveRequestBeanRegistrationAotProcessor}, run through the AOT
 * processing of an application context, so that its registration in
 * {@code META-INF/spring/aot.factories} is covered too.
 */
class ExclusiveRequestBeanRegistrationAotProcessorTests {

	private static final ReflectionHintsPredicates reflection = RuntimeHintsPredicates.reflection();

	@Test
	void resultTypeOfAMethodThatSharesItsResultIsRegisteredForBinding() throws Exception {
		RuntimeHints hints = processAheadOfTime(ReportService.class);
		assertThat(reflection.onType(Report.class).withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS))
			.accepts(hints);
		assertThat(reflection.onMethodInvocation(Report.class, "lines")).accepts(hints);
		assertThat(reflection.onMethodInvocation(Line.class, "amount")).accepts(hints);
	}

	@Test
	void valueTypeOfASharedAsynchronousResultIsRegisteredForBinding() {
		RuntimeHints hints = processAheadOfTime(ReportService.class);
		assertThat(reflection.onMethodInvocation(Summary.class, "total")).accepts(hints);
		assertThat(reflection.onType(CompletableFuture.class)).rejects(hints);
	}

	@Test
	void methodThatDoesNotShareItsResultAddsNoResultOrFailureHints() throws Exception {
		RuntimeHints hints = processAheadOfTime(ReportService.class);
		assertThat(reflection.onType(Receipt.class)).rejects(hints);
		assertThat(reflection.onConstructorInvocation(ReceiptMissingException.class.getConstructor(String.class)))
			.rejects(hints);
	}

	@Test
	void declaredFailureIsRegisteredToBeCreatedAgainForWaitingCallers() throws Exception {
		RuntimeHints hints = processAheadOfTime(ReportService.class);
		assertThat(reflection.onConstructorInvocation(ReportUnavailableException.class.getConstructor(String.class)))
			.accepts(hints);
	}

	@Test
	void failureOfAMethodWhoseWaitersTakeOverAndAVoidResultAddNoHints() throws Exception {
		RuntimeHints hints = processAheadOfTime(ReportService.class);
		assertThat(reflection.onConstructorInvocation(RefreshFailedException.class.getConstructor(String.class)))
			.rejects(hints);
		assertThat(reflection.onType(Void.class)).rejects(hints);
	}

	@Test
	void gettersThatKeyExpressionsCallAreRegistered() {
		RuntimeHints hints = processAheadOfTime(ReportService.class);
		assertThat(reflection.onMethodInvocation(ReportRequest.class, "region")).accepts(hints);
		assertThat(reflection.onType(ReceiptId.class)).rejects(hints);
	}

	@Test
	void annotatedMethodsAreRegisteredForInvocation() {
		RuntimeHints hints = processAheadOfTime(ReportService.class);
		assertThat(reflection.onMethodInvocation(ReportService.class, "report")).accepts(hints);
		assertThat(reflection.onMethodInvocation(ReportService.class, "unlocked")).rejects(hints);
	}

	@Test
	void fallbackMethodIsRegisteredForInvocation() {
		RuntimeHints hints = processAheadOfTime(FallbackService.class);
		assertThat(reflection.onMethodInvocation(FallbackService.class, "queued")).accepts(hints);
		assertThat(reflection.onMethodInvocation(FallbackService.class, "unrelated")).rejects(hints);
	}

	@Test
	void beanWithoutAnnotatedMethodsGetsNoContribution() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("plain", new RootBeanDefinition(PlainService.class));
		beanFactory.registerBeanDefinition("reports", new RootBeanDefinition(ReportService.class));
		ExclusiveRequestBeanRegistrationAotProcessor processor = new ExclusiveRequestBeanRegistrationAotProcessor();
		assertThat(processor.processAheadOfTime(RegisteredBean.of(beanFactory, "plain"))).isNull();
		assertThat(processor.processAheadOfTime(RegisteredBean.of(beanFactory, "reports"))).isNotNull();
	}

	private static RuntimeHints processAheadOfTime(Class<?> beanClass) {
		GenericApplicationContext context = new GenericApplicationContext();
		context.registerBeanDefinition("service", new RootBeanDefinition(beanClass));
		DefaultGenerationContext generationContext = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get("com.example", "AotTest")), new InMemoryGeneratedFiles());
		new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
		return generationContext.getRuntimeHints();
	}

	static class ReportService {

		@ExclusiveRequest(key = "#request.region", onConflict = OnConflict.SHARE_RESULT)
		public Report report(ReportRequest request) throws ReportUnavailableException {
			return new Report(request.region(), List.of());
		}

		@ExclusiveRequest(key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public CompletableFuture<Summary> summary(String id) {
			return CompletableFuture.completedFuture(new Summary(0));
		}

		@ExclusiveRequest(key = "#receiptId")
		public Receipt receipt(ReceiptId receiptId) throws ReceiptMissingException {
			return new Receipt(receiptId.value());
		}

		@ExclusiveRequest(onConflict = OnConflict.SHARE_RESULT, onHolderFailure = OnHolderFailure.TAKE_OVER)
		public Void refresh() throws RefreshFailedException {
			return null;
		}

		public Receipt unlocked() {
			return new Receipt("-");
		}

	}

	static class FallbackService {

		@ExclusiveRequest(key = "#tenant", fallback = "queued")
		public String export(String tenant) {
			return tenant;
		}

		String queued(String tenant) {
			return "queued " + tenant;
		}

		String unrelated(String tenant) {
			return tenant;
		}

	}

	static class PlainService {

		public Report report() {
			return new Report("-", List.of());
		}

	}

	record ReportRequest(String region) {
	}

	record Report(String region, List<Line> lines) {
	}

	record Line(String item, long amount) {
	}

	record Summary(long total) {
	}

	record ReceiptId(String value) {
	}

	record Receipt(String number) {
	}

	public static class ReportUnavailableException extends Exception {

		public ReportUnavailableException(String message) {
			super(message);
		}

	}

	public static class ReceiptMissingException extends Exception {

		public ReceiptMissingException(String message) {
			super(message);
		}

	}

	public static class RefreshFailedException extends RuntimeException {

		public RefreshFailedException(String message) {
			super(message);
		}

	}

}
