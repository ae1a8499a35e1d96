package dev.once.test;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test does when a real service it needs is down: outside CI it is skipped with one line
 * saying what to start; in CI ({@code CI=true}), where .ci/run starts every service, it fails.
 */
public final class Services {
  private Services() {}

  /** Never returns normally. */
  public static void unavailable(
      String service, String address, Throwable cause, String startWith) {
    String message =
        service
            + " at "
            + address
            + " not reachable ("
            + cause.getMessage()
            + "): start it with '"
            + startWith
            + "'";
    notHere(message);
  }

  /**
   * A test that cannot run on this machine now, for the reason given: skipped with that line
   * outside CI, failed in CI. Never returns normally.
   */
  public static void notHere(String message) {
    if ("true".equals(System.getenv("CI"))) {
      Assertions.fail(message);
    }
    Assumptions.abort(message);
  }
}
