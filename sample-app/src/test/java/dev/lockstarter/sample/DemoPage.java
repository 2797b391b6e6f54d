package dev.lockstarter.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.util.FileSystemUtils;

/**
 * The sample app's demo page in a real headless Chromium, driven through WebDriver with
 * Debian's {@code chromium} and {@code chromium-driver} (installed by
 * {@code scripts/test.sh}). Nothing is downloaded: the browser and the driver are the
 * ones on this machine.
 */
final class DemoPage implements AutoCloseable {

	private static final List<String> BROWSERS = List.of("/usr/bin/chromium", "/usr/bin/chromium-browser",
			"/usr/bin/google-chrome");

	private static final List<String> DRIVERS = List.of("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver");

	private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);

	private final Path profile;

	private final ChromeDriver driver;

	private DemoPage(Path profile, ChromeDriver driver) {
		this.profile = profile;
		this.driver = driver;
	}

	/**
	 * Start a headless Chromium with a window of the given size.
	 */
	static DemoPage open(int width, int height) {
		String browser = firstExisting(BROWSERS, "Chromium", "apt-get install chromium");
		String driverBinary = firstExisting(DRIVERS, "ChromeDriver", "apt-get install chromium-driver");
		try {
			Path profile = Files.createTempDirectory("demo-page-chromium");
			ChromeOptions options = new ChromeOptions();
			options.setBinary(browser);
			// The flags of a browser that must not reach out to the network by itself
			options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
					"--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
					"--disable-sync", "--user-data-dir=" + profile, "--window-size=" + width + "," + height);
			ChromeDriverService service = new ChromeDriverService.Builder()
				.usingDriverExecutable(Path.of(driverBinary).toFile())
				.usingAnyFreePort()
				.build();
			return new DemoPage(profile, new ChromeDriver(service, options));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String firstExisting(List<String> candidates, String what, String install) {
		return candidates.stream()
			.filter((candidate) -> Files.isExecutable(Path.of(candidate)))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException(what + " not found at " + candidates + ". Install it with '"
					+ install + "' (scripts/test.sh does)."));
	}

	WebDriver driver() {
		return this.driver;
	}

	/**
	 * Load the page at the root of an instance.
	 */
	void load(URI base) {
		this.driver.get(base.resolve("/").toString());
	}

	void typeName(String userName) {
		WebElement field = this.driver.findElement(By.id("mash-name"));
		field.clear();
		field.sendKeys(userName);
	}

	void chooseEndpoint(String path) {
		this.driver.findElement(By.cssSelector("input[name='endpoint'][value='" + path + "']")).click();
	}

	void secondInstance(String base) {
		WebElement field = this.driver.findElement(By.id("other-instance"));
		field.clear();
		field.sendKeys(base);
	}

	void mash() {
		this.driver.findElement(By.id("mash")).click();
	}

	void typeGuardedName(String userName) {
		WebElement field = this.driver.findElement(By.id("guarded-name"));
		field.clear();
		field.sendKeys(userName);
	}

	void doubleClickGuardedSubmit() {
		new Actions(this.driver).doubleClick(this.driver.findElement(By.id("guarded-submit"))).perform();
	}

	void clickGuardedSubmit() {
		this.driver.findElement(By.id("guarded-submit")).click();
	}

	/**
	 * Start the exports of a tenant, six at once.
	 */
	void startExports(String tenant, boolean wait) {
		WebElement field = this.driver.findElement(By.id("tenant"));
		field.clear();
		field.sendKeys(tenant);
		WebElement waiting = this.driver.findElement(By.id("exports-wait"));
		if (waiting.isSelected() != wait) {
			waiting.click();
		}
		this.driver.findElement(By.id("exports-start")).click();
	}

	/**
	 * Wait until the page shows the given number of responses and has looked up the users
	 * stored under the name.
	 */
	void awaitResponses(int count) {
		new WebDriverWait(this.driver, SETTLE_TIMEOUT).pollingEvery(Duration.ofMillis(50))
			.withMessage(() -> "page to show " + count + " responses, shows: " + responses())
			.until((driver) -> responses().size() == count
					&& "true".equals(driver.findElement(By.tagName("body")).getDomAttribute("data-settled")));
	}

	/**
	 * Return the responses the page lists, each as its status and title.
	 */
	List<Response> responses() {
		return this.driver.findElements(By.cssSelector("#responses li"))
			.stream()
			.map((item) -> new Response(Integer.parseInt(item.getDomAttribute("data-status")),
					item.findElement(By.className("title")).getText(),
					item.findElement(By.className("detail")).getText()))
			.toList();
	}

	Map<Integer, Long> statusCounts() {
		return responses().stream().collect(Collectors.groupingBy(Response::status, Collectors.counting()));
	}

	/**
	 * Return how many registrations of the name the page found stored.
	 */
	int storedCount() {
		return Integer.parseInt(this.driver.findElement(By.id("stored-summary")).getDomAttribute("data-count"));
	}

	String storedSummary() {
		return this.driver.findElement(By.id("stored-summary")).getText();
	}

	/**
	 * Save a screenshot of the page under {@code target/screenshots}.
	 */
	Path screenshot(String name) {
		try {
			Path directory = Files.createDirectories(Path.of("target", "screenshots"));
			Path target = directory.resolve(name + ".png");
			Path taken = this.driver.getScreenshotAs(OutputType.FILE).toPath();
			Files.copy(taken, target, StandardCopyOption.REPLACE_EXISTING);
			return target;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void close() {
		try {
			this.driver.quit();
		}
		finally {
			try {
				FileSystemUtils.deleteRecursively(this.profile);
			}
			catch (IOException ex) {
				// A leftover temporary profile is harmless
			}
		}
	}

	/**
	 * One response as the page shows it.
	 */
	record Response(int status, String title, String detail) {

	}

}
