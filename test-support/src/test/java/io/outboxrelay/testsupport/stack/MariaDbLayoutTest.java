package io.outboxrelay.testsupport.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class MariaDbLayoutTest {

  @Test
  void keepsTheSocketInAShortBaseDirectory() {
    MariaDbLayout layout = MariaDbLayout.forBaseDir(Path.of("/tmp/mariadb-1"));

    assertThat(layout.separateSocketDir()).isFalse();
    assertThat(layout.socket()).isEqualTo(Path.of("/tmp/mariadb-1/mariadb.sock"));
    assertThat(layout.dataDir()).isEqualTo(Path.of("/tmp/mariadb-1/data"));
  }

  @Test
  void movesTheSocketOutOfABaseDirectoryTooDeepForAUnixSocketPath() {
    Path deep = Path.of("/tmp", "d".repeat(120));
    MariaDbLayout layout = MariaDbLayout.forBaseDir(deep);
    try {
      assertThat(layout.separateSocketDir()).isTrue();
      assertThat(layout.socket().toString()).hasSizeLessThanOrEqualTo(100);
      assertThat(layout.errorLog().startsWith(deep)).isTrue();
    } finally {
      Dirs.deleteRecursively(layout.socketDir());
    }
  }
}
