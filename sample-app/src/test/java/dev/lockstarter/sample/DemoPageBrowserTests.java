package dev.lockstarter.sample;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo page at {@code /}, in a real headless Chromium against a running sample app
 * with its defaults (in-memory locks and users): ten clicks on the unsafe path register a
 * name several times, ten on the locked path once, a double click on the guarded form is
 * accepted once, and six exports at once run three at a time.
 */
class DemoPageBrowserTests {

	/**
	 * Long enough for ten requests sent 30 ms apart to overlap the first one, with a
	 * margin for a slow machine.
	 */
	private static final Duration POINTS_LATENCY = Duration.ofSeconds(1);

	private static ConfigurableApplicationContext app;

	private static URI base;

	private static DemoPage page;

	private final SampleClient client = new SampleClient();

	@BeforeAll
	static void start() {
		app = new SpringApplicationBuilder(SampleApplication.class).run("--server.port=0",
				"--sample.points-service.latency=" + POINTS_LATENCY.toMillis() + "ms",
				// The page's two seconds, stretched so that the click after the first
				// submission finished lands inside it on a slow machine too
				"--sample.form.hold-at-least=6s",
				// Six exports sent at once all arrive while the first three run
				"--sample.exports.latency=3s");
		base = SampleClient.base(app);
		page = DemoPage.open(1000, 1800);
	}

	@AfterAll
	static void stop() {
		if (page != null) {
			page.close();
		}
		if (app != null) {
			app.close();
		}
	}

	@Test
	void rootServesTheDemoPage() {
		HttpResponse<String> response = this.client.get(base.resolve("/"));
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> assertThat(type).startsWith("text/html"));
		page.load(base);
		assertThat(page.driver().getTitle()).startsWith("Double-submit demo");
	}

	@Test
	void tenClicksOnTheUnsafePathRegisterTheNameSeveralTimes() {
		String userName = uniqueName();
		page.load(base);
		page.typeName(userName);
		page.chooseEndpoint(SampleClient.UNSAFE);
		page.mash();
		page.awaitResponses(10);
		assertThat(page.statusCounts().get(201)).as("201 responses").isGreaterThan(1);
		assertThat(page.storedCount()).isGreaterThan(1).isEqualTo(this.client.findByName(base, userName).size());
		assertThat(page.storedSummary()).contains("registrations of \"" + userName + "\" are stored");
	}

	@Test
	void tenClicksOnTheLockedPathRegisterTheNameOnceAndShowNineConflicts() {
		String userName = uniqueName();
		page.load(base);
		page.typeName(userName);
		page.chooseEndpoint(SampleClient.SAFE);
		page.mash();
		page.awaitResponses(10);
		assertThat(page.statusCounts()).containsEntry(201, 1L).containsEntry(409, 9L).hasSize(2);
		assertThat(page.responses()).filteredOn((response) -> response.status() == 409).allSatisfy((response) -> {
			assertThat(response.title()).isEqualTo("Request already in progress");
			assertThat(response.detail()).contains("Another request with the same key is in progress")
				.doesNotContain("{");
		});
		assertThat(page.storedCount()).isEqualTo(1);
		assertThat(this.client.findByName(base, userName)).hasSize(1);
		Path screenshot = page.screenshot("demo-page");
		assertThat(screenshot).isNotEmptyFile();
	}

	@Test
	void doubleClickOnTheGuardedFormIsAcceptedOnceAndSoIsAClickAfterTheFirstFinished() {
		String userName = uniqueName();
		page.load(base);
		page.typeGuardedName(userName);
		page.doubleClickGuardedSubmit();
		page.awaitResponses(2);
		assertThat(page.statusCounts()).containsEntry(201, 1L).containsEntry(409, 1L);
		// The first submission has finished; the form's token stays locked for two
		// seconds from its start, so a third click is turned away by the form's lock,
		// not by the taken name (which would be a 422)
		page.clickGuardedSubmit();
		page.awaitResponses(3);
		assertThat(page.responses().get(2).status()).isEqualTo(409);
		assertThat(page.storedCount()).isEqualTo(1);
		assertThat(this.client.findByName(base, userName)).hasSize(1);
	}

	@Test
	void sixExportsAtOnceRunThreeAndRejectThreeOrAllRunWhenTheyWait() {
		String tenant = uniqueName();
		page.load(base);
		page.startExports(tenant, false);
		page.awaitResponses(6);
		assertThat(page.statusCounts()).containsEntry(201, 3L).containsEntry(409, 3L).hasSize(2);
		assertThat(page.responses()).filteredOn((response) -> response.status() == 201)
			.allSatisfy((response) -> assertThat(response.title()).isEqualTo("Exported"));
		page.startExports(tenant, true);
		page.awaitResponses(6);
		assertThat(page.statusCounts()).containsEntry(201, 6L).hasSize(1);
	}

	@Test
	void aNameOutsideTheRuleShowsTheProblemsTitleAndDetailNotItsJson() {
		page.load(base);
		page.typeName("two words");
		page.driver().findElement(By.id("register")).click();
		page.awaitResponses(1);
		DemoPage.Response response = page.responses().get(0);
		assertThat(response.status()).isEqualTo(400);
		assertThat(response.title()).isEqualTo("Invalid user name");
		assertThat(response.detail()).contains("1 to 30 letters, digits")
			.doesNotContain("{")
			.doesNotContain("\"type\"");
		assertThat(page.storedCount()).isZero();
	}

	@Test
	void theFormWorksFromTheKeyboardAlone() {
		String userName = uniqueName();
		page.load(base);
		// Every input has a label the browser associates with it
		assertThat(page.driver().findElements(By.cssSelector("label[for='mash-name']"))).hasSize(1);
		assertThat(page.driver().findElements(By.cssSelector("label[for='guarded-name']"))).hasSize(1);
		// The first Tab reaches the name, Enter submits the form
		new Actions(page.driver()).sendKeys(Keys.TAB).perform();
		assertThat(page.driver().switchTo().activeElement().getDomAttribute("id")).isEqualTo("mash-name");
		new Actions(page.driver()).sendKeys(userName, Keys.ENTER).perform();
		page.awaitResponses(1);
		assertThat(page.responses().get(0).status()).isEqualTo(201);
		assertThat(page.storedCount()).isEqualTo(1);
	}

	@Test
	void thePageFitsAPhoneSizedWindow() {
		try (DemoPage phone = DemoPage.open(390, 844)) {
			phone.load(base);
			WebElement html = phone.driver().findElement(By.tagName("html"));
			long pageWidth = Long.parseLong(html.getDomProperty("scrollWidth"));
			long windowWidth = Long.parseLong(html.getDomProperty("clientWidth"));
			assertThat(pageWidth).as("page width, without horizontal scrolling").isLessThanOrEqualTo(windowWidth);
			assertThat(phone.driver().findElement(By.id("mash")).isDisplayed()).isTrue();
		}
	}

	private static String uniqueName() {
		return "u" + UUID.randomUUID().toString().substring(0, 8);
	}

}
