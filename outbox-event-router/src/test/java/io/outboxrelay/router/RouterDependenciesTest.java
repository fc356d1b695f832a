package io.outboxrelay.router;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

/**
 * The router is pure: an outbox row in, a topic, key, headers and value out. Both the CDC and the
 * polling source share it, and users may embed it, so it must not pull in what only one of them
 * uses. Checked on the compiled classes, so a fully qualified name cannot slip past.
 */
class RouterDependenciesTest {

  /** The module\'s compiled main classes (where the class below was loaded from), not its tests. */
  private static final JavaClasses ROUTER =
      new ClassFileImporter()
          .importUrl(EventRouter.class.getProtectionDomain().getCodeSource().getLocation());

  @Test
  void theRouterUsesNoRelayDebeziumJdbcOrKafkaCode() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.outboxrelay.relay..",
            "io.debezium..",
            "org.apache.kafka..",
            "java.sql..",
            "javax.sql..")
        .because("the router is shared by both sources and must stay pure (README: Architecture)")
        .check(ROUTER);
  }

  @Test
  void theRouterNeedsNothingButTheJdk() {
    classes()
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("io.outboxrelay.router..", "java..")
        .because("the router has no runtime dependencies")
        .check(ROUTER);
  }
}
