package io.outboxrelay.relay.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.outboxrelay.relay.config.HttpConfig;
import io.outboxrelay.relay.metrics.RelayMetrics;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * What can be checked of {@code docker/} without a container engine: the compose file's replicas
 * and host ports, the relay's health check (run by bash against a real endpoint), the configuration
 * mounted where the image's command reads it, and Prometheus scraping every replica's metrics port
 * with the rules it is given. The files are read as the engine reads them (YAML, the Dockerfile's
 * JSON-form instructions, the relay's properties).
 */
class ComposeFileTest {

  private static final Path DOCKER = ProjectFiles.root().resolve("docker");
  private static final String RELAY = "relay";

  private final JsonNode compose = yaml(DOCKER.resolve("compose.yaml"));
  private final JsonNode services = compose.path("services");
  private final JsonNode relay = services.path(RELAY);
  private final Properties relayConfig = properties(DOCKER.resolve("relay.properties"));
  private final int httpPort = Integer.parseInt(relayConfig.getProperty("http.port"));

  @Test
  void noTwoContainersBindOneHostPort() {
    Map<String, String> taken = new HashMap<>();
    List<String> clashes = new ArrayList<>();
    services
        .fields()
        .forEachRemaining(
            service -> {
              int replicas = service.getValue().path("deploy").path("replicas").asInt(1);
              for (JsonNode port : service.getValue().path("ports")) {
                for (String binding : hostBindings(port, replicas, clashes, service.getKey())) {
                  String other = taken.putIfAbsent(binding, service.getKey());
                  if (other != null) {
                    clashes.add(service.getKey() + " and " + other + " both bind " + binding);
                  }
                }
              }
            });

    assertThat(clashes).isEmpty();
    assertThat(relay.path("deploy").path("replicas").asInt(1))
        .as("the README's leader and standby")
        .isEqualTo(2);
  }

  @Test
  void eachRelayChecksHealthReadyOnThePortItsConfigurationServes() {
    assertThat(relayConfig.getProperty("http.host"))
        .as("other containers reach the endpoint")
        .isEqualTo("0.0.0.0");
    assertThat(healthCheck())
        .contains("/dev/tcp/127.0.0.1/" + httpPort + " ", "GET /health/ready ");
    assertThat(relay.path("ports").get(0).asText()).endsWith(":" + httpPort);
  }

  @Test
  void theHealthCheckPassesWhilePublishingOrStandingByAndFailsOtherwise() throws Exception {
    assertThat(runHealthCheck(m -> m.health().running())).as("publishing").isZero();
    assertThat(
            runHealthCheck(
                m -> {
                  m.health().running();
                  m.health().roleFrom(() -> "standby (holder relay-1, epoch 3)");
                }))
        .as("standing by")
        .isZero();
    assertThat(runHealthCheck(m -> {})).as("starting").isNotZero();
    assertThat(runHealthCheck(m -> m.health().stopping())).as("stopping").isNotZero();
  }

  @Test
  void theConfigurationIsMountedWhereTheImagesCommandReadsIt() throws IOException {
    Map<String, JsonNode> instructions = dockerfileJsonInstructions();
    List<String> cmd = strings(instructions.get("CMD"));
    String configPath = cmd.get(cmd.indexOf("--config") + 1);

    assertThat(strings(relay.path("volumes"))).contains("./relay.properties:" + configPath + ":ro");
    assertThat(cmd.get(0)).isEqualTo("run");
    // The entry point is the launcher of the distribution the image copies in.
    String launcher = strings(instructions.get("ENTRYPOINT")).get(0);
    assertThat(Files.readString(DOCKER.resolve("Dockerfile")))
        .contains(
            "COPY --from=build /src/relay-app/target/dist/outbox-relay/ "
                + launcher.replace("bin/outbox-relay", ""));
  }

  @Test
  void everyFileComposeMountsExists() {
    List<String> missing = new ArrayList<>();
    services.forEach(
        service ->
            strings(service.path("volumes")).stream()
                .filter(v -> v.startsWith("."))
                .map(v -> v.substring(0, v.indexOf(':')))
                .filter(source -> !Files.exists(DOCKER.resolve(source)))
                .forEach(missing::add));

    assertThat(missing).isEmpty();
  }

  @Test
  void prometheusScrapesEveryRelayOnItsMetricsPortWithTheRulesItIsGiven() {
    Map<String, Path> mounts = mounts(services.path("prometheus"));
    Path config = mounts.get("/etc/prometheus/prometheus.yml");
    assertThat(config).as("the image's default configuration file").isNotNull();
    JsonNode prometheus = yaml(config);

    List<JsonNode> jobs =
        StreamSupport.stream(prometheus.path("scrape_configs").spliterator(), false)
            .filter(
                job ->
                    job.path("dns_sd_configs").findValues("names").stream()
                        .anyMatch(names -> strings(names).contains(RELAY)))
            .toList();
    assertThat(jobs).as("a job that resolves the relay service to every replica").hasSize(1);
    JsonNode job = jobs.get(0);
    assertThat(job.path("metrics_path").asText("/metrics")).isEqualTo("/metrics");
    assertThat(job.path("dns_sd_configs").get(0).path("port").asInt()).isEqualTo(httpPort);

    for (String rules : strings(prometheus.path("rule_files"))) {
      Path mounted = mounts.get("/etc/prometheus/" + rules);
      assertThat(mounted).as(rules + " mounted next to prometheus.yml").isNotNull();
      assertThat(mounted).isRegularFile();
    }
    assertThat(strings(prometheus.path("rule_files"))).isNotEmpty();
  }

  /** The relay's health-check command, as compose hands it to bash ($$ is a literal $). */
  private String healthCheck() {
    List<String> test = strings(relay.path("healthcheck").path("test"));
    assertThat(test.subList(0, 3)).containsExactly("CMD", "bash", "-c");
    return test.get(3).replace("$$", "$");
  }

  /** Runs the health check against an endpoint whose health {@code state} sets; its exit code. */
  private int runHealthCheck(Consumer<RelayMetrics> state) throws Exception {
    RelayMetrics metrics = new RelayMetrics();
    state.accept(metrics);
    try (HttpEndpoint endpoint =
        HttpEndpoint.start(new HttpConfig("127.0.0.1", 0), metrics, "compose-test")) {
      String command =
          healthCheck()
              .replace(
                  "/dev/tcp/127.0.0.1/" + httpPort + " ",
                  "/dev/tcp/127.0.0.1/" + endpoint.port() + " ");
      Process bash = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
      bash.getInputStream().readAllBytes();
      assertThat(bash.waitFor(10, TimeUnit.SECONDS)).isTrue();
      return bash.exitValue();
    }
  }

  /**
   * The host addresses a service's port entry binds for its replicas ({@code ip:port}; none for a
   * port Docker picks); a fixed port that several replicas would share is a clash.
   */
  private static List<String> hostBindings(
      JsonNode port, int replicas, List<String> clashes, String service) {
    String ip;
    String published;
    if (port.isObject()) {
      ip = port.path("host_ip").asText("");
      published = port.path("published").asText("");
    } else {
      Matcher m =
          Pattern.compile("(?:(?:(\\[[^]]+]|[^:]+):)?([0-9-]*):)?([0-9-]+)(?:/\\w+)?")
              .matcher(port.asText());
      assertThat(m.matches()).as("port entry " + port.asText()).isTrue();
      ip = m.group(1) == null ? "" : m.group(1);
      published = m.group(2) == null ? "" : m.group(2);
    }
    if (published.isEmpty()) {
      return List.of();
    }
    String[] range = published.split("-");
    int first = Integer.parseInt(range[0]);
    int last = range.length == 2 ? Integer.parseInt(range[1]) : first;
    if (last - first + 1 < replicas) {
      clashes.add(service + ": " + replicas + " replicas share host port(s) " + published);
    }
    List<String> bindings = new ArrayList<>();
    for (int p = first; p <= last; p++) {
      // An empty or 0.0.0.0 address binds every address, so it clashes with any other.
      bindings.add((ip.isEmpty() || ip.equals("0.0.0.0") ? "*" : ip) + ":" + p);
    }
    return bindings;
  }

  /** A service's bind mounts: container path to host file. */
  private static Map<String, Path> mounts(JsonNode service) {
    Map<String, Path> mounts = new HashMap<>();
    for (String volume : strings(service.path("volumes"))) {
      String[] parts = volume.split(":");
      if (parts[0].startsWith(".")) {
        mounts.put(parts[1], DOCKER.resolve(parts[0]).normalize());
      }
    }
    return mounts;
  }

  /** The Dockerfile's instructions written in JSON form (CMD, ENTRYPOINT), the last of each. */
  private static Map<String, JsonNode> dockerfileJsonInstructions() throws IOException {
    Map<String, JsonNode> instructions = new HashMap<>();
    Pattern json = Pattern.compile("^(CMD|ENTRYPOINT)\\s+(\\[.*])\\s*$");
    for (String line : Files.readAllLines(DOCKER.resolve("Dockerfile"))) {
      Matcher m = json.matcher(line);
      if (m.matches()) {
        instructions.put(m.group(1), new ObjectMapper().readTree(m.group(2)));
      }
    }
    assertThat(instructions).containsKeys("CMD", "ENTRYPOINT");
    return instructions;
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(v -> values.add(v.asText()));
    return values;
  }

  private static JsonNode yaml(Path file) {
    try {
      return new YAMLMapper().readTree(file.toFile());
    } catch (IOException e) {
      throw new AssertionError("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private static Properties properties(Path file) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (IOException e) {
      throw new AssertionError("cannot read " + file + ": " + e.getMessage(), e);
    }
    return p;
  }
}
