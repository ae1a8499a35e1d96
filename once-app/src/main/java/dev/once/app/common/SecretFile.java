package dev.once.app.common;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;

/**
 * A generated secret in a file only its owner may read (mode 0600): created once, with that mode
 * from the start, and reused; two processes creating it at once end with the same secret.
 */
final class SecretFile {
  static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
  private static final SecureRandom RANDOM = new SecureRandom();

  private SecretFile() {}

  /** The secret in {@code file}, 32 base64url characters made now if it does not exist. */
  static String readOrCreate(Path file) throws IOException {
    if (!Files.exists(file)) {
      create(file);
    }
    if (!OWNER_ONLY.equals(Files.getPosixFilePermissions(file))) {
      Files.setPosixFilePermissions(file, OWNER_ONLY);
    }
    String secret = Files.readString(file, StandardCharsets.UTF_8).strip();
    if (secret.isEmpty()) {
      throw new UserError(file + " is empty: remove it and the data it guards to start afresh");
    }
    return secret;
  }

  private static void create(Path file) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    String secret = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    Path temp =
        Files.createTempFile(
            dir, ".secret", ".tmp", PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    try {
      Files.writeString(temp, secret + "\n", StandardCharsets.UTF_8);
      Files.createLink(file, temp); // never replaces: the first one made wins
    } catch (FileAlreadyExistsException e) {
      // another process made it meanwhile: its secret is the one
    } finally {
      Files.deleteIfExists(temp);
    }
  }
}
