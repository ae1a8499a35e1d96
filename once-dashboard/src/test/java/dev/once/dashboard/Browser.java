package dev.once.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * One headless Chromium per test JVM (Debian's {@code chromium} and {@code chromium-driver}),
 * started on first use and closed when the JVM ends. Without them the test is skipped with one line
 * saying what to install; in CI ({@code CI=true}) it fails instead.
 */
final class Browser {
  static final Path DRIVER = Path.of("/usr/bin/chromedriver");
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static WebDriver driver;

  private Browser() {}

  static synchronized WebDriver get() {
    if (driver != null) {
      return driver;
    }
    if (!Files.isExecutable(DRIVER) || !Files.isExecutable(CHROMIUM)) {
      String message =
          "headless Chromium not found at "
              + CHROMIUM
              + " and "
              + DRIVER
              + ": install it with 'apt-get install -y chromium chromium-driver'";
      if ("true".equals(System.getenv("CI"))) {
        Assertions.fail(message);
      }
      Assumptions.abort(message);
    }
    try {
      Path profile = Files.createTempDirectory("once-dashboard-chromium");
      ChromeOptions options = new ChromeOptions();
      options.setBinary(CHROMIUM.toFile());
      options.addArguments(
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--disable-dev-shm-usage",
          "--window-size=1400,2200",
          "--user-data-dir=" + profile);
      ChromeDriverService service =
          new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile()).build();
      driver = new ChromeDriver(service, options);
      driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
      WebDriver d = driver;
      Runtime.getRuntime().addShutdownHook(new Thread(d::quit));
      return driver;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
