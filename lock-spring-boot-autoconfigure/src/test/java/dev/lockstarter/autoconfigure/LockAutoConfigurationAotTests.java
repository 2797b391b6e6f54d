package dev.lockstarter.autoconfigure;

import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.ReflectionHintsPredicates;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.javapoet.ClassName;
import org.springframework.web.ErrorResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the ahead-of-time processing of {@link LockAutoConfiguration} with an
 * application's {@code @ExclusiveRequest} methods, as a native image build runs it.
 */
class LockAutoConfigurationAotTests {

	private static final ReflectionHintsPredicates reflection = RuntimeHintsPredicates.reflection();

	@Test
	void applicationMethodsAndLibraryLookupsGetTheirHints() {
		RuntimeHints hints = processAheadOfTime(LockAutoConfiguration.class, ReportConfiguration.class);
		assertThat(reflection.onMethodInvocation(ReportService.class, "report")).accepts(hints);
		assertThat(reflection.onMethodInvocation(Report.class, "total")).accepts(hints);
		assertThat(reflection.onMethodInvocation(Receipt.class, "number")).rejects(hints);
		assertThat(reflection.onType(ErrorResponse.class)).accepts(hints);
		assertThat(reflection.onType(InvalidLockDeclarationFailureAnalyzer.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(hints);
	}

	@Test
	void methodsWithoutExclusiveRequestGetNoResultHints() {
		RuntimeHints hints = processAheadOfTime(LockAutoConfiguration.class, PlainConfiguration.class);
		assertThat(reflection.onType(Report.class)).rejects(hints);
	}

	private static RuntimeHints processAheadOfTime(Class<?>... componentClasses) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.register(componentClasses);
		DefaultGenerationContext generationContext = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get("com.example", "AotTest")), new InMemoryGeneratedFiles());
		new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
		return generationContext.getRuntimeHints();
	}

	@Configuration(proxyBeanMethods = false)
	static class ReportConfiguration {

		@Bean
		ReportService reportService() {
			return new ReportService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PlainConfiguration {

		@Bean
		PlainService plainService() {
			return new PlainService();
		}

	}

	static class ReportService {

		@ExclusiveRequest(key = "#region", onConflict = OnConflict.SHARE_RESULT)
		public Report report(String region) {
			return new Report(region, 0);
		}

		@ExclusiveRequest(key = "#number")
		public Receipt receipt(String number) {
			return new Receipt(number);
		}

	}

	static class PlainService {

		public Report report(String region) {
			return new Report(region, 0);
		}

	}

	record Report(String region, long total) {
	}

	record Receipt(String number) {
	}

}
