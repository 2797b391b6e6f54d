package dev.lockstarter.autoconfigure;

import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveJob;
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
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the ahead-of-time processing of {@link LockAutoConfiguration} with an
 * application's {@code @ExclusiveJob} methods, as a native image build runs it.
 */
class ExclusiveJobAotTests {

	private static final ReflectionHintsPredicates reflection = RuntimeHintsPredicates.reflection();

	@Test
	void jobMethodsAndTheFailureAnalyzerGetTheirHints() {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.register(LockAutoConfiguration.class, JobConfiguration.class);
		DefaultGenerationContext generationContext = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get("com.example", "AotTest")), new InMemoryGeneratedFiles());
		new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
		RuntimeHints hints = generationContext.getRuntimeHints();
		assertThat(reflection.onMethodInvocation(Reports.class, "send")).accepts(hints);
		assertThat(reflection.onMethodInvocation(Reports.class, "export")).accepts(hints);
		assertThat(reflection.onType(InvalidLockDeclarationFailureAnalyzer.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(hints);
	}

	@Configuration(proxyBeanMethods = false)
	static class JobConfiguration {

		@Bean
		Reports reports() {
			return new Reports();
		}

	}

	static class Reports {

		// Not @Scheduled, which is @Reflective itself: the hint comes from @ExclusiveJob
		@ExclusiveJob(holdAtLeast = "1s")
		public void send() {
		}

		@Scheduled(fixedRate = 60_000)
		@ExclusiveJob
		public void export() {
		}

	}

}
