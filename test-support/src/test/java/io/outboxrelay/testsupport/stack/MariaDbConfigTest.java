package io.outboxrelay.testsupport.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MariaDbConfigTest {

  private static final Path BASE = Path.of("/tmp/mdb-base");

  @Test
  void rendersABinlogForCdcByDefault() {
    MariaDbConfig config = config(true, "ROW", Map.of(), false);

    assertThat(config.value("log_bin")).isEqualTo("/tmp/mdb-base/data/mariadb-bin");
    assertThat(config.value("binlog_format")).isEqualTo("ROW");
    assertThat(config.value("binlog_row_image")).isEqualTo("FULL");
    assertThat(config.value("gtid_strict_mode")).isEqualTo("ON");
    assertThat(config.value("sync_binlog")).isEqualTo("1");
    assertThat(config.value("innodb_flush_log_at_trx_commit")).isEqualTo("1");
    assertThat(config.value("server_id")).isEqualTo("7");
    assertThat(config.has("skip-log-bin")).isFalse();
    assertThat(config.render())
        .startsWith("# Generated")
        .contains("[mysqld]\n")
        .contains("\nbind-address=127.0.0.1\n")
        .contains("\nskip-name-resolve\n")
        .contains("\nport=3399\n")
        .contains("\nsocket=/tmp/s/mariadb.sock\n")
        .contains("\ninnodb_buffer_pool_size=256M\n")
        .contains("\nperformance_schema=OFF\n")
        .contains("\ncharacter-set-server=utf8mb4\n")
        .contains("\ncollation-server=utf8mb4_unicode_ci\n")
        .contains("\nmax_connections=300\n");
  }

  @Test
  void skipsTheBinlogWhenItIsOff() {
    MariaDbConfig config = config(false, "STATEMENT", Map.of(), false);

    assertThat(config.has("log_bin")).isFalse();
    assertThat(config.render()).contains("\nskip-log-bin\n").contains("binlog_format=STATEMENT");
  }

  @Test
  void runsAsTheMysqlUserOnlyWhenStartedByRoot() {
    assertThat(config(true, "ROW", Map.of(), true).value("user")).isEqualTo("mysql");
    assertThat(config(true, "ROW", Map.of(), false).has("user")).isFalse();
  }

  @Test
  void extraOptionsReplaceGeneratedOnesWhateverTheirSpelling() {
    Map<String, String> extra = new LinkedHashMap<>();
    extra.put("max-connections", "50");
    extra.put("log_slave_updates", null);

    String rendered = config(true, "ROW", extra, false).render();

    assertThat(rendered)
        .doesNotContain("max_connections=300")
        .contains("\nmax-connections=50\n")
        .contains("\nlog_slave_updates\n");
  }

  private static MariaDbConfig config(
      boolean binlog, String format, Map<String, String> extra, boolean root) {
    MariaDbSettings settings =
        new MariaDbSettings(
            BASE,
            3399,
            7,
            binlog,
            format,
            "FULL",
            "256M",
            extra,
            Duration.ofSeconds(30),
            Duration.ofSeconds(30));
    return new MariaDbConfig(settings, new MariaDbLayout(BASE, Path.of("/tmp/s")), root);
  }
}
