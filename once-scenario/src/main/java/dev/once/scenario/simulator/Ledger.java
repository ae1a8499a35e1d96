package dev.once.scenario.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the simulated provider actually did — charges made, e-mails sent — and the idempotency keys
 * it remembers. The ground truth of every check. With a journal file, every action and key is
 * appended and forced to disk before the answer, and reloaded at start, so a killed simulator comes
 * back knowing what it did.
 */
public final class Ledger implements AutoCloseable {
  /** One action. {@code kind} is {@code charges} or {@code emails}. */
  public record Entry(
      String kind, String id, String key, String reference, JsonNode request, String at) {}

  /** A remembered key: the request's fingerprint and the answer given. */
  record Saved(String fingerprint, String response, long atMillis) {}

  private static final ObjectMapper json = new ObjectMapper();
  private final List<Entry> entries = new ArrayList<>();
  private final Map<String, Saved> keys = new HashMap<>();
  private final Set<String> running = new HashSet<>();
  private final FileChannel journal;

  public Ledger(Path journalPath) {
    try {
      if (journalPath != null && Files.exists(journalPath)) {
        for (String line : Files.readAllLines(journalPath)) {
          replay(json.readTree(line));
        }
      }
      this.journal =
          journalPath == null
              ? null
              : FileChannel.open(journalPath, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the simulator journal " + journalPath, e);
    }
  }

  public synchronized Entry perform(String kind, String key, String reference, JsonNode request) {
    long n = entries.stream().filter(e -> e.kind().equals(kind)).count() + 1;
    String prefix = kind.equals("charges") ? "ch_" : "em_";
    Entry e = new Entry(kind, prefix + n, key, reference, request, Instant.now().toString());
    entries.add(e);
    append(json.valueToTree(e));
    return e;
  }

  /** The key's saved answer, unless it is older than {@code retention} (then it is forgotten). */
  synchronized Optional<Saved> saved(String kind, String key, Instant now, Duration retention) {
    Saved s = keys.get(kind + "|" + key);
    if (s != null && now.isAfter(Instant.ofEpochMilli(s.atMillis()).plus(retention))) {
      keys.remove(kind + "|" + key);
      return Optional.empty();
    }
    return Optional.ofNullable(s);
  }

  /** False if a request with this key is being processed right now. */
  synchronized boolean start(String kind, String key) {
    return running.add(kind + "|" + key);
  }

  /**
   * Requests whose idempotency key is in progress (taken, not yet acted on and saved): a test sees
   * a request in the provider's hands instead of sleeping until it probably is.
   */
  public synchronized int running() {
    return running.size();
  }

  synchronized void finish(String kind, String key, Saved saved) {
    running.remove(kind + "|" + key);
    if (saved != null) {
      keys.put(kind + "|" + key, saved);
      ObjectNode line = json.createObjectNode().put("type", "key").put("slot", kind + "|" + key);
      line.set("saved", json.valueToTree(saved));
      append(line);
    }
  }

  public synchronized List<Entry> entries(String kind) {
    return entries.stream().filter(e -> e.kind().equals(kind)).toList();
  }

  public synchronized Optional<Entry> find(String kind, String key, String reference) {
    return entries.stream()
        .filter(e -> e.kind().equals(kind))
        .filter(e -> key != null ? key.equals(e.key()) : reference.equals(e.reference()))
        .findFirst();
  }

  private void append(JsonNode line) {
    if (journal == null) {
      return;
    }
    try {
      journal.write(ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8)));
      journal.force(false);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the simulator journal", e);
    }
  }

  private void replay(JsonNode line) throws IOException {
    if (line.path("type").asText().equals("key")) {
      keys.put(line.get("slot").asText(), json.treeToValue(line.get("saved"), Saved.class));
    } else {
      entries.add(json.treeToValue(line, Entry.class));
    }
  }

  @Override
  public synchronized void close() {
    if (journal != null) {
      try {
        journal.close();
      } catch (IOException ignored) {
        // the journal was forced after every line
      }
    }
  }
}
