package dev.once.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;

/** The page in a real headless Chromium, against a real pipeline on PostgreSQL. */
class DashboardBrowserTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private Rig rig;
  private Thread producer;
  private final AtomicBoolean producing = new AtomicBoolean(true);

  @AfterEach
  void close() throws InterruptedException {
    producing.set(false);
    if (producer != null) {
      producer.join(10_000);
    }
    if (rig != null) {
      rig.close();
    }
  }

  /** Publishes orders 1, 2, … about every 20 ms, at most {@code max}, until the test ends. */
  private void produce(long max) {
    AtomicLong next = new AtomicLong(1);
    producer =
        new Thread(
            () -> {
              while (producing.get() && next.get() <= max) {
                long id = next.getAndIncrement();
                rig.publish(id, "{\"orderId\":\"o-" + id + "\",\"card\":\"4111111111111111\"}");
                try {
                  Thread.sleep(20); // pacing of the producer, not a wait for a result
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "test-producer");
    producer.start();
  }

  private WebDriver open() {
    WebDriver browser = Browser.get();
    browser.get(rig.dashboard.urlWithToken());
    return browser;
  }

  /**
   * The visible text of the first match, read in the page: the page re-renders its tables every 2
   * s, so an element found a moment ago may be gone.
   */
  private static String text(WebDriver b, String css) {
    Object t =
        ((JavascriptExecutor) b)
            .executeScript(
                "const e = document.querySelector(arguments[0]); return e ? e.innerText : '';",
                css);
    return t == null ? "" : t.toString().strip();
  }

  private static Object js(WebDriver b, String script, Object... args) {
    return ((JavascriptExecutor) b).executeScript(script, args);
  }

  /** Clicks the first match, finding it again if a refresh replaced it meanwhile. */
  private static void click(WebDriver b, String css) {
    await()
        .atMost(WAIT)
        .pollInSameThread() // the driver's calls stay on the test's thread
        .pollDelay(Duration.ZERO)
        .ignoreException(StaleElementReferenceException.class)
        .until(
            () -> {
              b.findElement(By.cssSelector(css)).click();
              return true;
            });
  }

  @Test
  void thePageLoadsWhileAPipelineRunsAndItsNumbersMove() throws Exception {
    rig = new Rig(b -> b);
    rig.db.execute("CREATE TABLE effects (event_id text)");
    try (Consumer c =
        rig.consumer(
            "warehouse",
            3,
            (tx, e) -> tx.update("INSERT INTO effects VALUES (?)", e.id().value()))) {
      rig.startRelay();
      c.start();
      produce(3000);
      WebDriver b = open();
      String completion = "#consumers tr[data-consumer='warehouse'] td.completion";
      await().atMost(WAIT).until(() -> rate(b, completion) > 0);
      String numbers = text(b, "#consumers tbody");
      await().atMost(WAIT).until(() -> !text(b, "#consumers tbody").equals(numbers));
      assertThat(text(b, "#consumers tbody")).as("the numbers moved").isNotEqualTo(numbers);
      assertThat(rate(b, completion)).as("completion rate while the pipeline runs").isPositive();
      assertThat(b.findElements(By.cssSelector("#chart-rates canvas"))).isNotEmpty();
      assertThat(b.findElements(By.cssSelector("#chart-age canvas"))).isNotEmpty();
      assertThat(text(b, "#mode")).isEqualTo("actions on");
      assertThat(b.getCurrentUrl()).as("the token left the address bar").doesNotContain("token");
    }
  }

  private static double rate(WebDriver b, String css) {
    String t = text(b, css);
    return t.isEmpty() || t.equals("–") ? 0 : Double.parseDouble(t);
  }

  @Test
  void aPoisonEventsDeadLetterIsReplayedThroughThePageAfterTheFixWithExactlyOneEffect()
      throws Exception {
    rig = new Rig(b -> b);
    rig.db.execute("CREATE TABLE effects (event_id text)");
    AtomicBoolean broken = new AtomicBoolean(true);
    try (Consumer c =
        rig.consumer(
            "warehouse",
            3,
            (tx, e) -> {
              if (broken.get() && e.event().key().equals("13")) {
                throw new IllegalStateException("no stock for order " + e.event().key());
              }
              tx.update("INSERT INTO effects VALUES (?)", e.id().value());
            })) {
      rig.startRelay();
      c.start();
      produce(40);
      WebDriver b = open();
      String row = "#dl-list tr[data-event-id='order-paid:13']";
      await().atMost(WAIT).until(() -> !b.findElements(By.cssSelector(row)).isEmpty());
      assertThat(text(b, "#dl-groups tbody tr td.count")).isEqualTo("1");
      await().atMost(WAIT).until(() -> rig.db.count("SELECT count(*) FROM effects") == 39);

      broken.set(false); // the handler is fixed; now replay through the page
      click(b, row + " input[type=checkbox]");
      click(b, "#dl-replay-selected");
      await().atMost(WAIT).until(() -> b.findElement(By.id("confirm")).isDisplayed());
      assertThat(text(b, "#confirm-text")).startsWith("Replay 1 dead letter (selected)?");
      b.findElement(By.id("confirm-reason")).sendKeys("stock fixed");
      click(b, "#confirm-ok");

      await()
          .atMost(WAIT)
          .until(
              () ->
                  rig.db.count("SELECT count(*) FROM effects WHERE event_id = 'order-paid:13'")
                      == 1);
      await().atMost(WAIT).until(() -> b.findElements(By.cssSelector(row)).isEmpty());
      assertThat(rig.db.count("SELECT count(*) FROM effects")).isEqualTo(40);
      assertThat(
              rig.db.count(
                  "SELECT count(*) FROM once_dead_letter_action WHERE action = 'replay'"
                      + " AND reason = 'stock fixed'"))
          .isEqualTo(1);
      assertThat(rig.db.count("SELECT count(*) FROM once_dead_letter WHERE status = 'replayed'"))
          .isEqualTo(1);
      await()
          .atMost(WAIT)
          .until(
              () -> rig.db.count("SELECT count(*) FROM once_queue") == 0); // drained: no 2nd copy
      assertThat(rig.db.count("SELECT count(*) FROM effects WHERE event_id = 'order-paid:13'"))
          .as("exactly one effect for the replayed event")
          .isEqualTo(1);
    }
  }

  @Test
  void withAHundredThousandDeadLettersThePageLoadsFastAndTheConfirmationStatesTheCount()
      throws Exception {
    rig = new Rig(b -> b);
    rig.seedDeadLetters(100_000);
    rig.db.execute(
        """
        INSERT INTO once_operation (operation_id, provider, idempotency_key, fingerprint, request,
                                    state, created_at, updated_at, next_attempt_at, resolution,
                                    last_error)
        VALUES ('charge:order-77', 'payments', 'idem-77', 'f', 'r', 'UNKNOWN',
                now() - interval '4 minutes', now(), now() + interval '30 seconds',
                'lookup: provider has no record yet', 'read timed out'),
               ('charge:order-78', 'payments', 'idem-78', 'f', 'r', 'ABANDONED',
                now() - interval '2 hours', now(), null,
                'abandoned after 10 lookups: ask the provider', 'read timed out')
        """);
    rig.dashboard.sampleNow();
    WebDriver b = Browser.get();
    long start = System.nanoTime();
    b.get(rig.dashboard.urlWithToken());
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(20))
        .until(
            () ->
                b.findElements(By.cssSelector("#dl-list tbody tr")).size() == 50
                    && !b.findElements(By.cssSelector("#dl-groups tbody tr")).isEmpty());
    long loadMillis = (System.nanoTime() - start) / 1_000_000;
    System.out.println("dashboard page load with 100000 dead letters: " + loadMillis + " ms");
    assertThat(loadMillis).isLessThan(10_000);

    Client api = new Client(rig.url());
    for (String path :
        List.of(
            "api/dead-letters?limit=50",
            "api/dead-letters?limit=50&before=51",
            "api/dead-letters?limit=50&fingerprint=fp-b&before=100",
            "api/dead-letters/groups",
            "api/dead-letters/count?fingerprint=fp-b")) {
      long t = System.nanoTime();
      assertThat(api.get(path).status()).isEqualTo(200);
      System.out.println(path + ": " + (System.nanoTime() - t) / 1_000_000 + " ms");
    }

    long older = System.nanoTime();
    for (int i = 0; i < 5; i++) {
      String before = text(b, "#dl-list tbody tr:last-child td.num");
      click(b, "#dl-older");
      await()
          .atMost(WAIT)
          .until(
              () ->
                  !text(b, "#dl-list tbody tr:first-child td.num").isEmpty()
                      && Long.parseLong(text(b, "#dl-list tbody tr:first-child td.num"))
                          < Long.parseLong(before) + 1);
    }
    System.out.println(
        "five keyset pages: " + (System.nanoTime() - older) / 1_000_000 + " ms in the browser");
    assertThat(text(b, "#dl-list tbody tr:first-child td.num")).isEqualTo(String.valueOf(99_750));

    click(b, "#dl-groups tr[data-fingerprint='fp-b'] .replay-group");
    await().atMost(WAIT).until(() -> b.findElement(By.id("confirm")).isDisplayed());
    assertThat(text(b, "#confirm-text"))
        .startsWith("Replay 10000 dead letters of warehouse / OrderPaid / fp-b?");
    click(b, "#confirm-cancel");
    assertThat(rig.db.count("SELECT count(*) FROM once_dead_letter_action")).isZero();

    click(b, "#dl-newest");
    await()
        .atMost(WAIT)
        .until(() -> text(b, "#dl-list tbody tr:first-child td.num").equals("100000"));
    for (String id : List.of("100000", "99999", "99998")) {
      click(b, "#dl-list tr[data-id='" + id + "'] input[type=checkbox]");
    }
    click(b, "#dl-discard-selected");
    await().atMost(WAIT).until(() -> b.findElement(By.id("confirm")).isDisplayed());
    assertThat(text(b, "#confirm-text")).startsWith("Discard 3 dead letters (selected)?");
    click(b, "#confirm-ok");
    await()
        .atMost(WAIT)
        .until(
            () ->
                rig.db.count("SELECT count(*) FROM once_dead_letter WHERE status = 'discarded'")
                    == 3);
    assertThat(
            rig.db.count(
                "SELECT count(*) FROM once_dead_letter WHERE status = 'discarded'"
                    + " AND id IN (100000, 99999, 99998)"))
        .isEqualTo(3);

    click(b, "#dl-list tr[data-id='99997']");
    await().atMost(WAIT).until(() -> text(b, "#d-payload").contains("sha256"));
    assertThat(text(b, "#d-payload"))
        .doesNotContain("secret-99997")
        .contains("\"orderId\": \"string\"");
    click(b, "#d-reveal");
    await().atMost(WAIT).until(() -> text(b, "#d-payload").contains("secret-99997"));
    assertThat(text(b, "#uncertain")).contains("charge:order-77", "ABANDONED", "ask the provider");
    assertThat(
            String.valueOf(
                js(
                    b,
                    "return document.querySelector(\"#op-states .chip[data-state='UNKNOWN']\")"
                        + ".className")))
        .contains("uncertain")
        .doesNotContain("zero");
  }

  @Test
  void readOnlyHidesEveryAction() {
    rig = new Rig(b -> b.readOnly(true));
    rig.seedDeadLetters(5);
    WebDriver b = open();
    await()
        .atMost(WAIT)
        .until(() -> b.findElements(By.cssSelector("#dl-list tbody tr")).size() == 5);
    assertThat(text(b, "#mode")).isEqualTo("read-only");
    for (String action :
        List.of(
            "#dl-replay-selected",
            "#dl-discard-selected",
            "#dl-groups .replay-group",
            "#dl-groups .discard-group",
            "#dl-list tbody input[type=checkbox]",
            "#dl-all")) {
      assertThat(
              js(
                  b,
                  "const e = document.querySelector(arguments[0]);"
                      + " return e !== null && e.getClientRects().length > 0;",
                  action))
          .as(action + " is hidden")
          .isEqualTo(false);
    }
  }

  @Test
  void aScreenshotOfALiveRunIsWritten() throws Exception {
    rig = new Rig(b -> b);
    rig.db.execute("CREATE TABLE effects (event_id text)");
    rig.db.execute(
        """
        INSERT INTO once_operation (operation_id, provider, idempotency_key, fingerprint, request,
                                    state, created_at, updated_at, next_attempt_at, resolution,
                                    last_error)
        VALUES ('charge:order-77', 'payments', 'idem-77', 'f', 'r', 'UNKNOWN',
                now() - interval '4 minutes', now(), now() + interval '30 seconds',
                'lookup: provider has no record yet', 'read timed out')
        """);
    try (Consumer warehouse =
            rig.consumer(
                "warehouse",
                3,
                (tx, e) -> {
                  if (e.event().key().endsWith("7")) {
                    throw new IllegalStateException("no stock for order " + e.event().key());
                  }
                  Thread.sleep(
                      100); // a slow warehouse: it falls behind, as the picture should show
                  tx.update("INSERT INTO effects VALUES (?)", e.id().value());
                });
        Consumer notifier =
            rig.consumer(
                "notifier", 3, (tx, e) -> tx.update("INSERT INTO effects VALUES (?)", "n"))) {
      rig.startRelay();
      warehouse.start();
      notifier.start();
      produce(5000);
      WebDriver b = open();
      await()
          .atMost(WAIT)
          .until(
              () ->
                  ((Number)
                                  ((JavascriptExecutor) b)
                                      .executeScript(
                                          "return document.querySelectorAll('#dl-groups tbody tr').length"))
                              .intValue()
                          > 0
                      && rig.dashboard.sampleCount() > 30);
      b.manage().window().setSize(new Dimension(1400, 1750));
      byte[] png = ((TakesScreenshot) b).getScreenshotAs(OutputType.BYTES);
      b.manage().window().setSize(new Dimension(1400, 2200));
      assertThat(png).hasSizeGreaterThan(10_000);
      write(Path.of("target", "dashboard.png"), png);
      String docs = System.getProperty("dashboard.screenshot");
      if (docs != null) {
        write(Path.of(docs), png);
      }
    }
  }

  private static void write(Path path, byte[] png) throws IOException {
    Files.createDirectories(path.toAbsolutePath().getParent());
    Files.write(path, png);
  }
}
