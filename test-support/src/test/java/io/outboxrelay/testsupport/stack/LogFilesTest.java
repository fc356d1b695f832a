package io.outboxrelay.testsupport.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogFilesTest {

  @TempDir Path dir;

  @Test
  void tailReturnsTheLastLines() throws IOException {
    Path log = Files.writeString(dir.resolve("a.log"), "one\ntwo\nthree\nfour\n");

    assertThat(LogFiles.tail(log, 2)).isEqualTo("three\nfour");
    assertThat(LogFiles.tail(log, 10)).isEqualTo("one\ntwo\nthree\nfour");
  }

  @Test
  void tailOfAHugeFileReadsOnlyItsEndAndDropsTheCutLine() throws IOException {
    Path log = dir.resolve("big.log");
    Files.writeString(log, ("x".repeat(99) + "\n").repeat(10_000));
    Files.writeString(log, "last\n", StandardOpenOption.APPEND);

    assertThat(LogFiles.tail(log, 1)).isEqualTo("last");
    assertThat(LogFiles.tail(log, 100_000).split("\n"))
        .hasSizeLessThan(LogFiles.MAX_TAIL_BYTES / 100 + 2)
        .allMatch(line -> line.equals("last") || line.length() == 99);
  }

  @Test
  void tailOfAMissingFileSaysSo() {
    assertThat(LogFiles.tail(dir.resolve("missing.log"), 5)).startsWith("(no log file");
  }

  @Test
  void followerHandsOutCompleteLinesOnlyUntilTheWriterIsDone() throws IOException {
    Path log = Files.writeString(dir.resolve("f.log"), "old\n");
    LogFollower follower = new LogFollower(log, Files.size(log));

    Files.writeString(log, "first\nsec", StandardOpenOption.APPEND);
    assertThat(follower.newLines(false)).containsExactly("first");

    Files.writeString(log, "ond\r\nthird", StandardOpenOption.APPEND);
    assertThat(follower.newLines(false)).containsExactly("second");
    assertThat(follower.newLines(true)).containsExactly("third");
    assertThat(follower.newLines(true)).isEmpty();
  }

  @Test
  void followerWaitsForAFileThatDoesNotExistYet() throws IOException {
    Path log = dir.resolve("later.log");
    LogFollower follower = new LogFollower(log, 0);

    assertThat(follower.newLines(false)).isEmpty();
    Files.writeString(log, "hello\n");
    assertThat(follower.newLines(false)).containsExactly("hello");
  }
}
