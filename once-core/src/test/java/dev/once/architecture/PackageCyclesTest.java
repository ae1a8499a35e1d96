package dev.once.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package rules of once-core, checked on its main classes by every build: the SPI is below the
 * machinery and the shared JDBC store, never the other way round, and the packages under {@code
 * dev.once} form no cycle. (The API package {@code dev.once} and {@code dev.once.spi} name each
 * other's types by design: events and dead letters cross the SPI, the builder takes a transport and
 * a dialect.)
 */
class PackageCyclesTest {
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
  void theSpiNamesNothingOfTheMachineryNorOfTheJdbcStore() {
    noClasses()
        .that()
        .resideInAPackage("dev.once.spi..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.once.internal..", "dev.once.jdbc..", "dev.once.tablequeue..")
        .check(core);
  }

  @Test
  void theJdbcStoreNamesNothingOfTheMachinery() {
    noClasses()
        .that()
        .resideInAPackage("dev.once.jdbc..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.once.internal..")
        .check(core);
  }

  @Test
  void thePackagesUnderDevOnceFormNoCycle() {
    slices().matching("dev.once.(*)..").should().beFreeOfCycles().check(core);
  }

  @Test
  void theApiReachesTheMachineryOnlyThroughItsEntryPoints() {
    noClasses()
        .that()
        .resideInAPackage("dev.once")
        .and()
        .doNotHaveSimpleName("OnceBuilder")
        .and()
        .doNotHaveSimpleName("Schema")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.once.internal..")
        .check(core);
  }
}
