package dev.once.app;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.LocationProvider;
import com.tngtech.archunit.lang.ArchRule;
import dev.once.bench.e2e.BenchEnv;
import dev.once.scenario.WarehousePipeline;
import java.net.URISyntaxException;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The command's packages form no cycle, nor do the modules it calls (the warehouse scenario, the
 * bench): every package is a slice of its own, so {@code dev.once.app} (which wires every command)
 * may use {@code dev.once.app.proof}, but nothing under it may use {@code dev.once.app} back.
 */
@AnalyzeClasses(
    locations = PackageCyclesTest.ThreeModules.class,
    importOptions = ImportOption.DoNotIncludeTests.class)
class PackageCyclesTest {
  @ArchTest
  static final ArchRule noPackageCycle =
      slices().matching("dev.once.(**)").should().beFreeOfCycles();

  /** Only the classes of once-app, once-scenario and once-bench-e2e: no class path scan. */
  static final class ThreeModules implements LocationProvider {
    @Override
    public Set<Location> get(Class<?> testClass) {
      return Stream.of(Main.class, WarehousePipeline.class, BenchEnv.class)
          .map(ThreeModules::of)
          .collect(Collectors.toSet());
    }

    private static Location of(Class<?> c) {
      try {
        return Location.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
      } catch (URISyntaxException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
