package dev.once.app;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * What {@code once --version} prints: the Maven version (a filtered resource) and the commit the
 * jar was built from ({@code git.properties}, written by git-commit-id-maven-plugin; absent when
 * built without git).
 */
record BuildInfo(String version, String commit) {

  static BuildInfo read() {
    Properties version = load("version.properties");
    Properties git = load("git.properties");
    return new BuildInfo(
        known(version.getProperty("version")), known(git.getProperty("git.commit.id.abbrev")));
  }

  /** {@code once 1.0.0-SNAPSHOT (commit 2b61db8)}. */
  String describe() {
    String from = commit == null ? "commit unknown: built without git" : "commit " + commit;
    return "once " + (version == null ? "(version unknown)" : version) + " (" + from + ")";
  }

  private static String known(String value) {
    return value == null || value.isBlank() || value.startsWith("${") ? null : value;
  }

  private static Properties load(String name) {
    Properties p = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream(name)) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // an unreadable resource reads as unknown
    }
    return p;
  }
}
