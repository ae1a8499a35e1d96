package dev.once.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The engine parts of once-core, one package each under {@code dev.once.internal}: which part may
 * name which. {@code dev.once.internal.wiring} ({@code OnceImpl}, {@code Engines}, ...) assembles
 * the parts and may name them all; {@code dev.once.internal} itself holds only what several parts
 * share, and every part may name it. A part names another part only where {@link #ALLOWED} says so;
 * a new part package must be added to the table before it builds.
 */
class EnginePartsTest {
  /** Each part and the other parts it may name (besides {@code dev.once.internal} itself). */
  static final Map<String, Set<String>> ALLOWED =
      Map.of(
          "consumer", Set.of(),
          "relay", Set.of(),
          "operations", Set.of(),
          "requests", Set.of(),
          "retention", Set.of(),
          "schema", Set.of(),
          "postgres", Set.of(),
          "mariadb", Set.of(),
          "wiring",
              Set.of(
                  "consumer",
                  "relay",
                  "operations",
                  "requests",
                  "retention",
                  "schema",
                  "postgres",
                  "mariadb"));

  private static final Set<String> DATABASES = Set.of("postgres", "mariadb");

  private static JavaClasses core;

  @BeforeAll
  static void importMainClasses() {
    core =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages("dev.once");
  }

  @Test
  void everyPartPackageIsInTheTable() {
    Set<String> parts =
        core.stream()
            .map(JavaClass::getPackageName)
            .filter(p -> p.startsWith("dev.once.internal."))
            .map(p -> p.substring("dev.once.internal.".length()).split("\\.")[0])
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(parts).isEqualTo(new TreeSet<>(ALLOWED.keySet()));
  }

  @Test
  void aPartNamesOnlyThePartsTheTableAllows() {
    ALLOWED.forEach(
        (part, allowed) -> {
          String[] others =
              ALLOWED.keySet().stream()
                  .filter(other -> !other.equals(part) && !allowed.contains(other))
                  .map(other -> "dev.once.internal." + other + "..")
                  .toArray(String[]::new);
          noClasses()
              .that()
              .resideInAPackage("dev.once.internal." + part + "..")
              .should()
              .dependOnClassesThat()
              .resideInAnyPackage(others)
              .because(
                  "part '" + part + "' may name only " + allowed + " (EnginePartsTest.ALLOWED)")
              .check(core);
        });
  }

  @Test
  void thePartsFormNoCycle() {
    slices().matching("dev.once.internal.(*)..").should().beFreeOfCycles().check(core);
  }

  @Test
  void onlyTheWiringAndTheTableQueueNameADatabasesPackage() {
    noClasses()
        .that()
        .resideOutsideOfPackages(
            "dev.once.internal",
            "dev.once.internal.wiring",
            "dev.once.tablequeue",
            "dev.once.internal.postgres..",
            "dev.once.internal.mariadb..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            DATABASES.stream().map(d -> "dev.once.internal." + d + "..").toArray(String[]::new))
        .check(core);
  }

  /**
   * A part reads a small context the wiring builds (e.g. {@code OperationsContext}), never the
   * wiring itself: {@code OnceImpl} is no service locator.
   */
  @Test
  void noPartNamesTheWiring() {
    noClasses()
        .that()
        .resideInAnyPackage(
            ALLOWED.keySet().stream()
                .filter(p -> !p.equals("wiring"))
                .map(p -> "dev.once.internal." + p + "..")
                .toArray(String[]::new))
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.once.internal.wiring..")
        .because("a part reads the context the wiring hands it, not OnceImpl")
        .check(core);
  }

  /**
   * The helpers in {@code dev.once.internal} are below every part: they name no part (but the
   * database parts, for PostgreSQL's own statements in {@code Jdbc}, {@code TxImpl} and {@code
   * DatabaseWaits}) and never the wiring, so the parts and their helpers form no package cycle.
   */
  @Test
  void theHelpersNameNoPartButTheDatabasesNorTheWiring() {
    noClasses()
        .that()
        .resideInAPackage("dev.once.internal")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            ALLOWED.keySet().stream()
                .filter(p -> !DATABASES.contains(p))
                .map(p -> "dev.once.internal." + p + "..")
                .toArray(String[]::new))
        .because(
            "dev.once.internal holds what the parts share; the wiring lives in internal.wiring")
        .check(core);
  }

  /** What keeps the helpers' PostgreSQL arrows from closing a cycle: a database names no helper. */
  @Test
  void theDatabasePartsNameNoHelper() {
    noClasses()
        .that()
        .resideInAnyPackage(
            DATABASES.stream().map(d -> "dev.once.internal." + d + "..").toArray(String[]::new))
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.once.internal")
        .check(core);
  }

  @Test
  void theSchemaPartNeverNamesThePublicSchemaClass() {
    noClasses()
        .that()
        .resideInAPackage("dev.once.internal..")
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.once.Schema")
        .check(core);
  }
}
