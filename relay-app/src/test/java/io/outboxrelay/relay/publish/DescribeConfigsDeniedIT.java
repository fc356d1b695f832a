package io.outboxrelay.relay.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxrelay.relay.testing.InProcessRun;
import io.outboxrelay.testsupport.outbox.Ledger;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RawOutboxInserts;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.TestEvent;
import io.outboxrelay.testsupport.outbox.TestTopics;
import io.outboxrelay.testsupport.stack.KafkaBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A managed Kafka whose ACLs do not let the relay read topic configurations, as many do: a broker
 * of its own with the KRaft authorizer, everything allowed except {@code DescribeConfigs} on every
 * topic for the relay's principal ({@code User:ANONYMOUS} on PLAINTEXT). The relay publishes every
 * event, says once at WARN which ACL is missing and what it checks instead, and logs no line per
 * topic.
 */
class DescribeConfigsDeniedIT {

  private static final String PRINCIPAL = "User:ANONYMOUS";

  private static KafkaBroker broker;

  @TempDir Path dir;
  private OutboxDatabase db;
  private RelayRun relay;

  @BeforeAll
  static void startBrokerWithAcls() throws Exception {
    broker =
        KafkaBroker.builder()
            .brokerProperty(
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
            .brokerProperty("allow.everyone.if.no.acl.found", "true")
            .start();
    ResourcePattern allTopics = new ResourcePattern(ResourceType.TOPIC, "*", PatternType.LITERAL);
    try (Admin admin = admin()) {
      // With an ACL on a resource, "no ACL found" no longer allows the rest: allow it explicitly.
      admin
          .createAcls(
              List.of(
                  new AclBinding(
                      allTopics,
                      new AccessControlEntry(
                          PRINCIPAL, "*", AclOperation.ALL, AclPermissionType.ALLOW)),
                  new AclBinding(
                      allTopics,
                      new AccessControlEntry(
                          PRINCIPAL, "*", AclOperation.DESCRIBE_CONFIGS, AclPermissionType.DENY))))
          .all()
          .get(30, TimeUnit.SECONDS);
      ConfigResource probe = new ConfigResource(ConfigResource.Type.TOPIC, "acl-probe");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                try {
                  admin.describeConfigs(List.of(probe)).all().get(10, TimeUnit.SECONDS);
                  return false;
                } catch (ExecutionException e) {
                  return e.getCause() instanceof TopicAuthorizationException;
                }
              });
    }
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  @AfterEach
  void tearDown() {
    if (relay != null) {
      relay.close();
    }
    if (db != null) {
      db.close();
    }
  }

  private static Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            broker.bootstrapServers(),
            AdminClientConfig.CLIENT_ID_CONFIG,
            "acl-it"));
  }

  @Test
  void publishesEveryEventAndWarnsOnceAboutTheMissingAclWithoutALinePerTopic() throws Exception {
    db = OutboxDatabase.forPolling();
    TestTopics topics = TestTopics.fresh(broker.bootstrapServers(), "acl");
    String name = topics.name();
    Ledger ledger = new Ledger(RelaySettings.topicPrefix(name));
    relay =
        InProcessRun.run(
            "acl",
            dir,
            RelaySettings.polling(db, broker.bootstrapServers(), name)
                .writeTo(dir.resolve("relay.properties")));

    // Three topics, two rounds: each topic's limit is asked for, and refused.
    for (int round = 1; round <= 2; round++) {
      for (String type : List.of("order", "payment", "invoice")) {
        for (int k = 1; k <= 3; k++) {
          RawOutboxInserts.write(
              db,
              ledger,
              List.of(
                  TestEvent.of(type, type + "-" + k, 2L * round - 1),
                  TestEvent.of(type, type + "-" + k, 2L * round)));
        }
      }
      Ledger.Result result = ledger.check(topics.readAll(ledger, Duration.ofSeconds(120)));
      assertThat(result.lost()).as(result.summary()).isZero();
      assertThat(result.duplicates()).as(result.summary()).isZero();
      assertThat(result.outOfOrder()).as(result.summary()).isZero();
      assertThat(result.mismatches()).as(result.summary()).isEmpty();
    }

    String log = relay.log();
    List<String> warnings =
        log.lines().filter(l -> l.contains("may not read topic configurations")).toList();
    assertThat(warnings)
        .as(log)
        .singleElement()
        .asString()
        .contains(" WARN ")
        .contains("DescribeConfigs")
        .contains("max.request.size of 1048576 bytes")
        .contains("Allow the principal DescribeConfigs on the outbox topics");
    assertThat(log).as("no line per topic").doesNotContain("cannot read the max.message.bytes");
    assertThat(relay.stackTraceLines()).as(log).isEmpty();
  }
}
