package io.outboxrelay.relay.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus files under {@code docker/prometheus}: the alert rules are valid and fire when
 * they should ({@code rules.test.yml}), and the server configuration loads them. Needs promtool;
 * skipped, saying so, where it is not installed.
 */
class RulesFileTest {

  private static final Path DIR = ProjectFiles.root().resolve("docker/prometheus");

  private static Promtool.Result promtool(String... args) throws Exception {
    assumeTrue(
        Promtool.find() != null,
        "SKIPPED: promtool is not on PATH (scripts/ensure-prereqs.sh installs Debian's prometheus)");
    return Promtool.run(List.of(args));
  }

  @Test
  void alertRulesAreValid() throws Exception {
    Promtool.Result r = promtool("check", "rules", DIR.resolve("rules.yml").toString());
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).contains("SUCCESS: 4 rules found");
  }

  @Test
  void alertsFireWhenTheirConditionLastsAndStayQuietOtherwise() throws Exception {
    Promtool.Result r = promtool("test", "rules", DIR.resolve("rules.test.yml").toString());
    assertThat(r.exitCode()).as(r.output()).isZero();
  }

  @Test
  void prometheusConfigurationLoadsTheRules() throws Exception {
    Promtool.Result r = promtool("check", "config", DIR.resolve("prometheus.yml").toString());
    assertThat(r.exitCode()).as(r.output()).isZero();
  }
}
