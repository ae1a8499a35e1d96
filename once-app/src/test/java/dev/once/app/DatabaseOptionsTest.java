package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.app.common.DatabaseOptions;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code --db} and {@code --schema} mean the same on every command ({@link DatabaseOptions}): the
 * operator's commands look where {@code once demo} wrote, and a namespace that is not there is
 * named, not created.
 */
class DatabaseOptionsTest {

  /** Every command that opens a database, as a user types it. */
  private static final List<String> COMMANDS =
      List.of(
          "demo",
          "worker",
          "produce",
          "check",
          "reset",
          "verify",
          "status",
          "dead-letters list",
          "dead-letters show",
          "dead-letters replay",
          "dead-letters discard",
          "dead-letters keys",
          "dead-letters move",
          "dashboard",
          "schema apply",
          "schema status",
          "bench",
          "bench e2e",
          "bench markers",
          "bench backlog",
          "bench faults",
          "bench tracing",
          "bench parked-key");

  @Test
  void everyCommandThatOpensADatabaseTakesDbAndSchemaFromTheOneMixin() {
    CommandLine root = Main.commandLine();
    List<String> withDb = new ArrayList<>();
    collectCommandsWithDb(root, withDb);
    assertThat(withDb).as("the commands with --db").containsExactlyInAnyOrderElementsOf(COMMANDS);
    for (String command : COMMANDS) {
      CommandLine cli = find(root, command);
      for (String name : List.of("--db", "--schema")) {
        OptionSpec option = cli.getCommandSpec().findOption(name);
        assertThat(option).as(command + " " + name).isNotNull();
        assertThat(((Field) option.userObject()).getDeclaringClass())
            .as(command + " " + name + " is declared by the mixin, not by the command")
            .isEqualTo(DatabaseOptions.class);
      }
    }
  }

  @Test
  void withoutSchemaTheOperatorsCommandsLookInTheDemosNamespace() {
    for (String command : List.of("status", "dead-letters list", "dashboard", "schema status")) {
      CommandLine root = Main.commandLine();
      List<String> args = new ArrayList<>(List.of(command.split(" ")));
      args.addAll(List.of("--db", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
      root.parseArgs(args.toArray(String[]::new));
      DatabaseOptions db = mixin(find(root, command));
      assertThat(db.schema()).as(command).isEqualTo("once_demo");
    }
  }

  @Test
  void withoutSchemaEveryCommandUsesTheNamespaceTheUrlNamesAsJdbcDoes() {
    for (String command : COMMANDS.stream().filter(c -> !c.startsWith("bench")).toList()) {
      for (String url :
          List.of(
              "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=shop",
              "jdbc:postgresql://127.0.0.1:5432/test?currentSchema=shop,public&user=postgres",
              "jdbc:mariadb://127.0.0.1:3306/shop?user=root")) {
        CommandLine root = Main.commandLine();
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.addAll(List.of("--db", url));
        if (command.equals("produce")) {
          args.addAll(List.of("--events", "1"));
        }
        root.parseArgs(args.toArray(String[]::new));
        assertThat(mixin(find(root, command)).schema()).as(command + " " + url).isEqualTo("shop");
      }
    }
  }

  @Test
  void aSchemaAndAUrlThatNameTwoDifferentOnesAreOneLineNamingBoth() {
    String url = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=shop";
    for (String command : List.of("status", "dead-letters list", "schema apply", "demo")) {
      List<String> args = new ArrayList<>(List.of(command.split(" ")));
      args.addAll(List.of("--db", url, "--schema", "app"));
      Cli.run(args.toArray(String[]::new))
          .assertRefusedInOneLine(
              "--schema app and currentSchema=shop in --db name two different schemas");
    }
    Cli.run("status", "--db", "jdbc:mariadb://127.0.0.1:3306/shop?user=root", "--schema", "app")
        .assertRefusedInOneLine(
            "--schema app and the database shop in --db name two different databases");
    Cli.run("status", "--db", url.replace("shop", "Shop"))
        .assertRefusedInOneLine("currentSchema in --db must be 1 to 63 lower-case letters");
  }

  @Test
  void afterTheDemoOnAServerDeadLettersStatusAndSchemaStatusSeeItsRowsWithTheSameSchema()
      throws SQLException {
    String url = LocalServer.url();
    String schema = "ops_walk_" + ProcessHandle.current().pid();
    try {
      Cli.Run demo =
          Cli.run(
              "demo",
              "--events",
              "40",
              "--poison-rate",
              "0.1",
              "--seed",
              "5",
              "--db",
              url,
              "--schema",
              schema);
      assertThat(demo.exit()).as(demo.out() + demo.err()).isZero();
      long dead = count(url, "SELECT count(*) FROM " + schema + ".once_dead_letter");
      assertThat(dead).as("the demo's poison orders were dead-lettered").isPositive();

      Cli.Run list = Cli.run("dead-letters", "list", "--db", url, "--schema", schema);
      Cli.Run status = Cli.run("status", "--db", url, "--schema", schema);
      Cli.Run schemaStatus = Cli.run("schema", "status", "--db", url, "--schema", schema);

      assertThat(list.exit()).as(list.err()).isZero();
      assertThat(list.out()).contains(dead + " dead letters");
      assertThat(status.exit()).as(status.err()).isZero();
      assertThat(status.out())
          .contains("currentSchema=" + schema)
          .containsPattern("dead +warehouse +" + dead);
      assertThat(schemaStatus.exit()).as(schemaStatus.out() + schemaStatus.err()).isZero();
      assertThat(schemaStatus.out()).contains("up to date");
    } finally {
      exec(url, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  @Test
  void aSchemaThatIsNotThereIsNamedAndNotCreated() throws SQLException {
    String url = LocalServer.url();
    String schema = "ops_none_" + ProcessHandle.current().pid();
    for (List<String> command :
        List.of(
            List.of("status"),
            List.of("dead-letters", "list"),
            List.of("dead-letters", "show", "1"),
            List.of("dashboard", "--port", "0"),
            List.of("schema", "status"))) {
      List<String> args = new ArrayList<>(command);
      args.addAll(List.of("--db", url, "--schema", schema));
      Cli.Run r = Cli.run(args.toArray(String[]::new));
      String what = String.join(" ", command);
      assertThat(r.exit()).as(what).isEqualTo(2);
      assertThat(r.err())
          .as(what)
          .contains("once: schema " + schema + " not found on jdbc:postgresql://127.0.0.1:5432")
          .contains("--schema or in the URL (default once_demo, where once demo runs)")
          .doesNotContain("\tat ");
      assertThat(count(url, "SELECT count(*) FROM pg_namespace WHERE nspname = '" + schema + "'"))
          .as(what + " created the schema")
          .isZero();
    }
  }

  private static void collectCommandsWithDb(CommandLine cli, List<String> out) {
    if (cli.getCommandSpec().findOption("--db") != null) {
      out.add(cli.getCommandSpec().qualifiedName(" ").substring("once ".length()));
    }
    cli.getSubcommands().values().stream()
        .distinct()
        .forEach(sub -> collectCommandsWithDb(sub, out));
  }

  private static CommandLine find(CommandLine root, String command) {
    CommandLine cli = root;
    for (String word : command.split(" ")) {
      cli = cli.getSubcommands().get(word);
    }
    return cli;
  }

  private static DatabaseOptions mixin(CommandLine cli) {
    return cli.getCommandSpec().mixins().values().stream()
        .map(m -> m.userObject())
        .filter(DatabaseOptions.class::isInstance)
        .map(DatabaseOptions.class::cast)
        .findFirst()
        .orElseThrow();
  }

  private static long count(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void exec(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
