package io.outboxrelay.idempotency;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

/**
 * consumer-idempotency stands alone: consumers depend on it without the relay, and nothing a user
 * deploys carries test support. Checked on the compiled main classes, so a fully qualified name
 * cannot slip past.
 */
class IdempotencyDependenciesTest {

  /** The module\'s compiled main classes (where the class below was loaded from), not its tests. */
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .importUrl(IdempotentProcessor.class.getProtectionDomain().getCodeSource().getLocation());

  @Test
  void usesNoRelayCodeAndNoOtherModuleOfTheProjectButTheContractInTheRouter() {
    noClasses()
        .should()
        .dependOnClassesThat(
            resideInAPackage("io.outboxrelay..")
                .and(not(resideInAPackage("io.outboxrelay.idempotency..")))
                .and(not(resideInAPackage("io.outboxrelay.router"))))
        .because(
            "consumers use this library without the relay; the outbox contract (header names,"
                + " dialects) is the JDK-only router's")
        .check(MAIN);
  }

  /**
   * OpenTelemetry is optional: the loop must load and run without it, so only the class that {@code
   * RecordTracing} loads after finding the API, and the builder's setter (which only stores the
   * instance), may refer to it.
   */
  @Test
  void onlyTheTracingClassAndTheConsumerBuilderReferToOpenTelemetry() {
    noClasses()
        .that()
        .haveNameNotMatching(
            "io\\.outboxrelay\\.idempotency\\.kafka\\.OpenTelemetryRecordTracing(\\$.*)?")
        .and()
        .doNotHaveFullyQualifiedName("io.outboxrelay.idempotency.kafka.IdempotentConsumer$Builder")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.opentelemetry..")
        .because("the OpenTelemetry API is an optional dependency")
        .check(MAIN);
  }

  @Test
  void mainCodeUsesNoTestSupport() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.outboxrelay.idempotency.testing..",
            "io.outboxrelay.testsupport..",
            "org.junit..",
            "org.assertj..",
            "org.awaitility..")
        .because("nothing a user deploys carries test support")
        .check(MAIN);
  }
}
