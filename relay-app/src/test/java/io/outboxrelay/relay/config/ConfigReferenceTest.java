package io.outboxrelay.relay.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The checked-in documentation must match the declarations; regenerate it when this fails. */
class ConfigReferenceTest {

  private static final String REGENERATE =
      "generated documentation is stale: run scripts/gen-config-docs.sh and commit the result";

  private static Path projectRoot() {
    Path p = Path.of("").toAbsolutePath();
    return Files.exists(p.resolve("config")) ? p : p.getParent();
  }

  @Test
  void exampleFileMatchesTheDeclarations() throws Exception {
    String checkedIn =
        Files.readString(
            projectRoot().resolve(ConfigReference.EXAMPLE_FILE), StandardCharsets.UTF_8);

    assertThat(checkedIn).as(REGENERATE).isEqualTo(ConfigReference.exampleProperties());
  }

  @Test
  void configurationReferenceMatchesTheDeclarations() throws Exception {
    String doc =
        Files.readString(
            projectRoot().resolve(ConfigReference.REFERENCE_FILE), StandardCharsets.UTF_8);
    int begin = doc.indexOf(ConfigReference.BEGIN);
    int end = doc.indexOf(ConfigReference.END);

    assertThat(begin)
        .as(ConfigReference.REFERENCE_FILE + " has no config reference markers")
        .isNotNegative();
    assertThat(end).as(ConfigReference.REFERENCE_FILE + " has no end marker").isGreaterThan(begin);
    assertThat(doc.substring(begin + ConfigReference.BEGIN.length(), end))
        .as(REGENERATE)
        .isEqualTo("\n" + ConfigReference.markdown() + "\n");
  }

  @Test
  void exampleFileIsAValidConfiguration() throws Exception {
    Properties props = new Properties();
    props.load(new StringReader(ConfigReference.exampleProperties()));
    Map<String, String> raw = new java.util.HashMap<>();
    props.stringPropertyNames().forEach(k -> raw.put(k, props.getProperty(k)));

    RelayConfig config = new ConfigLoader(Map.of()).parse(raw, null);

    assertThat(config.mode()).isEqualTo(RelayMode.CDC);
  }

  @Test
  void everyKeyIsDocumented() {
    for (ConfigKey<?> key : RelayConfigKeys.ALL) {
      assertThat(ConfigReference.markdown()).contains("`" + key.name() + "`");
      assertThat(ConfigReference.exampleProperties()).contains(key.name() + "=");
      assertThat(key.doc()).as(key.name()).isNotBlank().doesNotContainIgnoringCase("default is");
    }
  }
}
