package dev.once.app;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The command's packages form no cycle, nor do the modules it calls (the warehouse scenario, the
 * bench): every package is a slice of its own, so {@code dev.once.app} (which wires every command)
 * may use {@code dev.once.app.proof}, but nothing under it may use {@code dev.once.app} back.
 */
@AnalyzeClasses(
    packages = {"dev.once.app", "dev.once.scenario", "dev.once.bench.e2e"},
    importOptions = ImportOption.DoNotIncludeTests.class)
class PackageCyclesTest {
  @ArchTest
  static final ArchRule noPackageCycle =
      slices().matching("dev.once.(**)").should().beFreeOfCycles();
}
