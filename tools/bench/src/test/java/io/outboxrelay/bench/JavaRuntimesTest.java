package io.outboxrelay.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Finding a Java runtime new enough for Debezium Server among installed JDKs. The versions asked
 * for are above the running JVM's, so that the search, not the running JVM, answers.
 */
class JavaRuntimesTest {

  @TempDir Path jvms;

  @Test
  void takesTheNewestRuntimeOfAtLeastTheFeatureVersionFromTheDirectory() throws Exception {
    jdk("java-17", "17.0.15");
    jdk("jdk-90", "90.0.4");
    jdk("jdk-91", "91.0.3+9");
    Files.createDirectories(jvms.resolve("not-a-jdk"));

    JavaRuntimes.Jdk found = JavaRuntimes.atLeast(90, null, jvms);

    assertThat(found.home()).isEqualTo(jvms.resolve("jdk-91"));
    assertThat(found.version()).isEqualTo("91.0.3+9");
    assertThat(found.java()).isEqualTo(jvms.resolve("jdk-91/bin/java"));
  }

  @Test
  void saysHowToNameOneWhenNoRuntimeIsNewEnough() throws Exception {
    jdk("java-17", "17.0.15");

    assertThatThrownBy(() -> JavaRuntimes.atLeast(90, null, jvms))
        .isInstanceOf(PeerUnavailableException.class)
        .hasMessageContaining("Java 90 or newer is needed")
        .hasMessageContaining("--server-java");
  }

  @Test
  void takesTheRuntimeGivenByItsHomeOrItsJavaBinary() throws Exception {
    Path home = jdk("jdk-90", "90.0.4");

    assertThat(JavaRuntimes.atLeast(90, home, jvms).home()).isEqualTo(home);
    assertThat(JavaRuntimes.atLeast(90, home.resolve("bin/java"), jvms).home()).isEqualTo(home);
  }

  @Test
  void refusesARuntimeGivenThatIsTooOldOrNotARuntime() throws Exception {
    Path old = jdk("java-17", "17.0.15");

    assertThatThrownBy(() -> JavaRuntimes.atLeast(21, old.resolve("bin/java"), jvms))
        .isInstanceOf(PeerUnavailableException.class)
        .hasMessageContaining("is Java 17.0.15; Java 21 or newer is needed");
    assertThatThrownBy(() -> JavaRuntimes.atLeast(21, jvms.resolve("nothing"), jvms))
        .isInstanceOf(PeerUnavailableException.class)
        .hasMessageContaining("is not a Java runtime");
  }

  private Path jdk(String dir, String version) throws Exception {
    Path home = jvms.resolve(dir);
    Path java = home.resolve("bin").resolve("java");
    Files.createDirectories(java.getParent());
    Files.writeString(java, "#!/bin/sh\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(
        home.resolve("release"), "IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"" + version + "\"\n");
    return home;
  }
}
