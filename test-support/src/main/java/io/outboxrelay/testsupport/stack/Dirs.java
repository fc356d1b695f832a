package io.outboxrelay.testsupport.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.stream.Stream;

/** Creating, handing over and deleting directories. Stateless and thread-safe. */
final class Dirs {

  private Dirs() {}

  /** Whether this JVM runs as root, in which case servers must drop to an unprivileged user. */
  static boolean runningAsRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  /**
   * Creates a fresh directory under {@code java.io.tmpdir}.
   *
   * @param prefix the name prefix
   * @return the new directory
   */
  static Path createTempDir(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temp directory " + prefix, e);
    }
  }

  /**
   * Creates a directory and its parents if missing.
   *
   * @param dir the directory
   * @return {@code dir}
   */
  static Path createDirectories(Path dir) {
    try {
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + dir, e);
    }
  }

  /**
   * Gives a directory tree to a user and group ({@code chown -R}).
   *
   * @param root the tree
   * @param user the user and group name
   */
  static void chownRecursively(Path root, String user) {
    try {
      UserPrincipalLookupService lookup = root.getFileSystem().getUserPrincipalLookupService();
      UserPrincipal owner = lookup.lookupPrincipalByName(user);
      GroupPrincipal group = lookup.lookupPrincipalByGroupName(user);
      try (Stream<Path> paths = Files.walk(root)) {
        for (Path path : (Iterable<Path>) paths::iterator) {
          PosixFileAttributeView view =
              Files.getFileAttributeView(
                  path, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
          view.setOwner(owner);
          view.setGroup(group);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot chown " + root + " to " + user, e);
    }
  }

  /**
   * Deletes a directory tree; a missing tree is fine.
   *
   * @param root the tree
   * @throws UncheckedIOException if something could not be deleted
   */
  static void deleteRecursively(Path root) {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                throws IOException {
              Files.deleteIfExists(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
              if (e instanceof NoSuchFileException) {
                return FileVisitResult.CONTINUE;
              }
              throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
              if (e != null && !(e instanceof NoSuchFileException)) {
                throw e;
              }
              Files.deleteIfExists(dir);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + root, e);
    }
  }
}
