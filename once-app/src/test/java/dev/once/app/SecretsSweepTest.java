package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.test.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * Every command that takes a JDBC URL or an AMQP URI, fed ones with a password that cannot work
 * (refused port, unknown host, wrong scheme, unescaped characters, wrong password): the password
 * appears nowhere in what it prints (stdout, stderr, log lines), and the error still says what is
 * wrong.
 */
class SecretsSweepTest {
  private static final String SECRET = "S3cr3tPw";

  /** A URL and a piece of text its error must show. */
  record Bad(String url, String says) {}

  private static final List<Bad> DB_URLS =
      List.of(
          new Bad("jdbc:postgresql://127.0.0.1:1/test?user=u&password=" + SECRET, "127.0.0.1:1"),
          new Bad("jdbc:postgresql://u:" + SECRET + "@127.0.0.1:1/test", "u:***@127.0.0.1"),
          new Bad("postgresql://u:" + SECRET + "@127.0.0.1/test", "JDBC URL"),
          new Bad(
              "jdbc:postgresql://nohost.invalid/test?user=u&password=" + SECRET, "nohost.invalid"),
          new Bad("jdbc:postgresql://127.0.0.1:1/test?user=u&password=" + SECRET + "%zz", "%25"),
          new Bad(
              "jdbc:postgresql://127.0.0.1:1/t?user=u&password=" + SECRET + " x", "127.0.0.1:1"),
          new Bad("jdbc:postgresql://u:" + SECRET + "/x@127.0.0.1:1/test", "must be escaped"),
          new Bad("jdbc:postgresql://127.0.0.1:5432/test?user=nobody&password=" + SECRET, ":5432"),
          new Bad("jdbc:mariadb://127.0.0.1:1/test?user=u&password=" + SECRET, "127.0.0.1:1"),
          new Bad("jdbc:mariadb://u:" + SECRET + "@127.0.0.1:1/test", "***@127.0.0.1"));

  private static final List<List<String>> DB_COMMANDS =
      List.of(
          List.of("status"),
          List.of("check"),
          List.of("worker"),
          List.of("produce", "--events", "1"),
          List.of("demo", "--events", "1"),
          List.of("verify", "--events", "1", "--kills", "0"),
          List.of("dead-letters", "list"),
          List.of("dead-letters", "show", "1"),
          List.of("reset"),
          List.of("schema", "apply"),
          List.of("bench", "--events", "10"),
          List.of("dashboard", "--port", "0"));

  private static final List<Bad> AMQP_URIS =
      List.of(
          new Bad("amqp://u:" + SECRET + "@nohost.invalid", "nohost.invalid"),
          new Bad("amqp://u:" + SECRET + "@127.0.0.1:1/", "127.0.0.1:1"),
          new Bad("http://u:" + SECRET + "@127.0.0.1/", "amqp://"),
          new Bad("amqp://u:" + SECRET + " x@127.0.0.1/", "not a URI"),
          new Bad("amqp://u:" + SECRET + "%zz@127.0.0.1/", "not a URI"),
          new Bad("amqp://u:" + SECRET + "/x@127.0.0.1:1/", "%-escaped"),
          new Bad("amqp://u:" + SECRET + "@127.0.0.1:99999/", "port"),
          new Bad("amqp://u:" + SECRET + "@127.0.0.1:5672/", "127.0.0.1:5672"));

  /** The commands that take --amqp; each also gets a working database. */
  private static final List<List<String>> AMQP_COMMANDS =
      List.of(
          List.of("demo", "--events", "5"),
          List.of("worker"),
          List.of("reset"),
          List.of("verify", "--events", "5", "--kills", "0"),
          List.of("bench", "--events", "10"),
          List.of("dead-letters", "list"));

  @Test
  void noCommandPrintsThePasswordOfABadJdbcUrl() {
    SoftAssertions soft = new SoftAssertions();
    for (List<String> command : DB_COMMANDS) {
      for (Bad bad : DB_URLS) {
        Cli.Run r = run(command, "--db", bad.url());
        String printed = r.out() + r.err();
        String what = String.join(" ", command) + " --db " + bad.url() + "\n" + printed;
        soft.assertThat(r.exit()).as(what).isEqualTo(2);
        soft.assertThat(printed).as(what).doesNotContain(SECRET).contains(bad.says());
        soft.assertThat(printed).as(what).doesNotContain("\tat ");
      }
    }
    soft.assertAll();
  }

  @Test
  void noCommandPrintsThePasswordOfABadAmqpUri() {
    String db = TestDatabase.embeddedUrl();
    // the namespace every command of the list reads or writes (--schema's default), with its tables
    assertThat(Cli.run("schema", "apply", "--db", db).exit()).isZero();
    SoftAssertions soft = new SoftAssertions();
    for (List<String> command : AMQP_COMMANDS) {
      for (Bad bad : AMQP_URIS) {
        Cli.Run r = run(command, "--db", db, "--transport", "rabbitmq", "--amqp", bad.url());
        String printed = r.out() + r.err();
        String what = String.join(" ", command) + " --amqp " + bad.url() + "\n" + printed;
        soft.assertThat(printed).as(what).doesNotContain(SECRET);
        if (r.exit() != 0) { // dead-letters list shows the table's dead letters without a broker
          soft.assertThat(printed).as(what).contains(bad.says()).doesNotContain("\tat ");
        }
      }
    }
    soft.assertAll();
  }

  @Test
  void aPasswordGivenToACommandThatDoesNotTakeItIsNotEchoed() {
    Cli.Run r = Cli.run("schema", "print", "--db", "jdbc:postgresql://u:" + SECRET + "@h/db");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("Unknown options: '--db'").doesNotContain(SECRET);
  }

  private static Cli.Run run(List<String> command, String... options) {
    List<String> args = new ArrayList<>(command);
    args.addAll(List.of(options));
    return Cli.run(args.toArray(String[]::new));
  }
}
