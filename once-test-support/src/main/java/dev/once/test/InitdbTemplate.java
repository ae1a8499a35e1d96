package dev.once.test;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * A data directory that {@code initdb} made once on this machine, copied into each new embedded
 * server's data directory instead of running {@code initdb} again. Every test JVM that uses the
 * embedded PostgreSQL (each module's, and each {@link RestartablePostgres}) ran {@code initdb}: 2.5
 * s on a quiet two-core machine, 9.5 s at load 13, where copying its 39 MB takes 0.5 s. The
 * server's settings are given when it starts, not in the files, so one template serves every
 * server; it is kept in the temporary folder, keyed by the binaries, made by the first server that
 * runs {@code initdb} and put in place whole (a rename), so that a JVM never copies half of one.
 */
final class InitdbTemplate {
  private static final String LOCK = "epg-lock"; // zonky's lock file, held by its server
  private static final Path TEMPLATE = location();

  private InitdbTemplate() {}

  /**
   * Starts a server on {@code dataDirectory} with {@code settings}. An empty directory is filled
   * from the template, or, where there is none yet or the server does not start on the copy, by
   * {@code initdb}, whose result then becomes the template. A directory that holds a cluster
   * already (a restart) is started as it is.
   */
  static EmbeddedPostgres start(
      Path dataDirectory, UnaryOperator<EmbeddedPostgres.Builder> settings) throws IOException {
    if (Files.exists(dataDirectory.resolve("postgresql.conf"))) {
      return settings.apply(on(dataDirectory)).start();
    }
    if (copyInto(dataDirectory)) {
      try {
        return settings.apply(on(dataDirectory)).start();
      } catch (IOException | RuntimeException e) {
        empty(dataDirectory); // then initdb, as without a template
      }
    }
    return settings
        .apply(on(dataDirectory).setDataDirectoryCustomizer(dir -> keep(dir.toPath())))
        .start();
  }

  private static EmbeddedPostgres.Builder on(Path dataDirectory) {
    // not cleaned: zonky runs initdb on every start of a directory it cleans
    return EmbeddedPostgres.builder().setDataDirectory(dataDirectory).setCleanDataDirectory(false);
  }

  /**
   * Fills the empty {@code dataDirectory} from the template; false, and left empty, if it cannot.
   */
  private static boolean copyInto(Path dataDirectory) {
    if (TEMPLATE == null || !Files.isRegularFile(TEMPLATE.resolve("postgresql.conf"))) {
      return false;
    }
    try {
      copy(TEMPLATE, dataDirectory);
      return true;
    } catch (IOException | UncheckedIOException e) {
      empty(dataDirectory);
      return false;
    }
  }

  /**
   * Keeps a copy of the cluster initdb just made in {@code dataDirectory}, if there is none yet.
   */
  private static void keep(Path dataDirectory) {
    if (TEMPLATE == null || Files.exists(TEMPLATE)) {
      return;
    }
    Path partial = null;
    try {
      partial = Files.createTempDirectory(TEMPLATE.getParent(), TEMPLATE.getFileName() + ".");
      copy(dataDirectory, partial);
      Files.move(partial, TEMPLATE, StandardCopyOption.ATOMIC_MOVE);
      partial = null;
    } catch (IOException | UncheckedIOException e) {
      // another JVM put its template in place first, or none: the next server runs initdb
    } finally {
      if (partial != null) {
        delete(partial);
      }
    }
  }

  /** Deletes {@code directory} and everything in it, as far as it can. */
  static void delete(Path directory) {
    empty(directory);
    try {
      Files.deleteIfExists(directory);
    } catch (IOException e) {
      // a temporary folder left behind; nothing depends on it
    }
  }

  private static void empty(Path directory) {
    try (Stream<Path> files = Files.walk(directory)) {
      files
          .sorted(Comparator.reverseOrder())
          .filter(p -> !p.equals(directory))
          .forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // left behind; nothing depends on it
    }
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path source : (Iterable<Path>) files::iterator) {
        String relative = from.relativize(source).toString();
        if (!relative.isEmpty() && !relative.equals(LOCK)) { // the root is there (mode 0700)
          Files.copy(source, to.resolve(relative), StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  /**
   * {@code <tmp>/once-initdb-<hash>}, the hash of where zonky's binaries for this system come from
   * (their jar names the PostgreSQL version); null, and no template, where they cannot be found.
   */
  private static Path location() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String system = os.startsWith("mac") ? "darwin" : os.startsWith("windows") ? "windows" : os;
    String arch = System.getProperty("os.arch", "");
    arch = arch.equals("amd64") ? "x86_64" : arch.equals("aarch64") ? "arm_64" : arch;
    URL binaries =
        InitdbTemplate.class
            .getClassLoader()
            .getResource(String.format("postgres-%s-%s.txz", system, arch));
    if (binaries == null) {
      return null;
    }
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256")
              .digest(binaries.toString().getBytes(StandardCharsets.UTF_8));
      return Path.of(System.getProperty("java.io.tmpdir"))
          .resolve("once-initdb-" + HexFormat.of().formatHex(hash, 0, 8));
    } catch (NoSuchAlgorithmException e) {
      return null;
    }
  }
}
