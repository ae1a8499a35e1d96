package dev.once.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import dev.once.ReconcilePolicy;
import dev.once.scenario.simulator.Fault;
import dev.once.scenario.simulator.Ledger;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongPredicate;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

/**
 * What the payment provider and the mail relay actually did, counted from the simulator's own
 * ledger, not from our tables.
 *
 * @param charges charges the payment provider made
 * @param ordersChargedTwice orders with more than one charge
 * @param ordersNotCharged orders 1..events that are not poison and have no charge
 * @param emailsSent e-mails the relay sent
 * @param emailsDuplicated e-mails sent beyond the first for the same operation
 * @param ordersNotEmailed orders 1..events without an e-mail
 * @param answersLost requests the providers acted on and then dropped the answer of, on purpose
 * @param serverErrors requests the providers refused with HTTP 503 without acting, on purpose
 */
public record ProviderCounts(
    long charges,
    long ordersChargedTwice,
    long ordersNotCharged,
    long emailsSent,
    long emailsDuplicated,
    long ordersNotEmailed,
    long answersLost,
    long serverErrors) {
  /**
   * What the e-mail operation does with an uncertain send: the mail relay cannot deduplicate, so
   * the scenario prefers a second e-mail to a lost one.
   */
  public static final ReconcilePolicy MAIL_POLICY = ReconcilePolicy.PREFER_DUPLICATE;

  /** Counts the ledger for orders {@code 1..events}; poison orders are expected to have nothing. */
  public static ProviderCounts from(
      Ledger ledger, Map<Fault, Long> faults, long events, LongPredicate poison) {
    List<Ledger.Entry> charges = ledger.entries("charges");
    List<Ledger.Entry> emails = ledger.entries("emails");
    Map<String, Long> perOrder = group(charges, r -> r.path("order").asText());
    Map<String, Long> perEmail = group(emails, r -> r.path("reference").asText());
    Map<String, Long> emailsPerOrder = group(emails, r -> r.path("order").asText());
    return new ProviderCounts(
        charges.size(),
        perOrder.values().stream().filter(n -> n > 1).count(),
        missing(perOrder, events, poison),
        emails.size(),
        perEmail.values().stream().mapToLong(n -> n - 1).sum(),
        missing(emailsPerOrder, events, poison),
        faults.getOrDefault(Fault.DROP_RESPONSE, 0L),
        faults.getOrDefault(Fault.SERVER_ERROR, 0L));
  }

  private static Map<String, Long> group(
      List<Ledger.Entry> entries, Function<JsonNode, String> by) {
    return entries.stream()
        .collect(Collectors.groupingBy(e -> by.apply(e.request()), Collectors.counting()));
  }

  private static long missing(Map<String, Long> perOrder, long events, LongPredicate poison) {
    return LongStream.rangeClosed(1, events)
        .filter(id -> !poison.test(id) && !perOrder.containsKey(Long.toString(id)))
        .count();
  }

  /** Every reason the remote side is not one charge per order and at least one e-mail. */
  public List<String> problems(long orders) {
    List<String> problems = new ArrayList<>();
    if (charges != orders || ordersChargedTwice > 0 || ordersNotCharged > 0) {
      problems.add(
          String.format(
              "%d charges at the payment provider for %d orders (%d orders charged twice, %d not"
                  + " charged)",
              charges, orders, ordersChargedTwice, ordersNotCharged));
    }
    if (ordersNotEmailed > 0) {
      problems.add(
          ordersNotEmailed
              + " orders without an e-mail (policy "
              + MAIL_POLICY
              + " must never miss one)");
    }
    return problems;
  }

  public void putJson(Map<String, Object> json) {
    json.put("charges", charges);
    json.put("orders_charged_twice", ordersChargedTwice);
    json.put("orders_not_charged", ordersNotCharged);
    json.put("emails_sent", emailsSent);
    json.put("emails_duplicated", emailsDuplicated);
    json.put("orders_not_emailed", ordersNotEmailed);
    json.put("email_policy", MAIL_POLICY.name());
    json.put("provider_answers_lost", answersLost);
    json.put("provider_http_503", serverErrors);
  }

  public void print(PrintStream out) {
    out.printf(
        "  %-24s %d answers lost after acting, %d HTTP 503 (on purpose)%n",
        "provider faults", answersLost, serverErrors);
    out.printf(
        "  %-24s %d charges: %d orders charged twice, %d not charged%n",
        "payment provider", charges, ordersChargedTwice, ordersNotCharged);
    out.printf(
        "  %-24s %d e-mails sent: %d duplicated, %d orders without one%n",
        "mail relay", emailsSent, emailsDuplicated, ordersNotEmailed);
    List<String> note = new ArrayList<>();
    note.add("Charges: the payment provider deduplicates by idempotency key, so a retry");
    note.add("cannot charge twice. E-mails: the mail relay CANNOT deduplicate (it ignores");
    note.add("the key and has no lookup); after a lost answer or a crash nobody can tell");
    if (MAIL_POLICY == ReconcilePolicy.PREFER_DUPLICATE) {
      note.add("whether an e-mail went out. Policy PREFER_DUPLICATE sends it again, so an");
      note.add("e-mail can arrive twice (PREFER_MISSED would miss some instead).");
    } else {
      note.add("whether an e-mail went out. Policy PREFER_MISSED does not send it again, so");
      note.add("an e-mail can be missing (PREFER_DUPLICATE would repeat some instead).");
    }
    out.printf("  %-24s %s%n", "note", note.get(0));
    note.subList(1, note.size()).forEach(line -> out.printf("  %-24s %s%n", "", line));
  }
}
