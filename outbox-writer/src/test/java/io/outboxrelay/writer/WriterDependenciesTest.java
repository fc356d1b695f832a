package io.outboxrelay.writer;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

/**
 * The writer stands alone and needs nothing but the JDK and the JDK-only router, the home of the
 * outbox contract: applications embed it without the relay, and its optional dependencies are each
 * used by one place only, loaded only when present. Checked on the compiled main classes.
 */
class WriterDependenciesTest {

  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .importUrl(OutboxWriter.class.getProtectionDomain().getCodeSource().getLocation());

  @Test
  void usesNoOtherModuleOfTheProjectButTheContractInTheRouter() {
    noClasses()
        .should()
        .dependOnClassesThat(
            resideInAPackage("io.outboxrelay..")
                .and(not(resideInAPackage("io.outboxrelay.writer..")))
                .and(not(resideInAPackage("io.outboxrelay.router"))))
        .because(
            "applications embed the writer without the relay; the outbox contract it shares with"
                + " the relay is the JDK-only router's")
        .check(MAIN);
  }

  @Test
  void usesJacksonOnlyInItsOwnPackage() {
    noClasses()
        .that()
        .resideOutsideOfPackage("io.outboxrelay.writer.jackson..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("com.fasterxml..", "io.outboxrelay.writer.jackson..")
        .because("Jackson is optional: nothing else may load it")
        .check(MAIN);
  }

  @Test
  void usesOpenTelemetryOnlyInOneClass() {
    noClasses()
        .that()
        .doNotHaveFullyQualifiedName(OpenTelemetryCurrentTrace.class.getName())
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.opentelemetry..")
        .because("OpenTelemetry is optional: CurrentTrace.detect() loads that class after a check")
        .check(MAIN);
  }

  @Test
  void usesNoLibraryBeyondTheJdkAndItsOptionalDependencies() {
    noClasses()
        .should()
        .dependOnClassesThat(
            not(
                resideInAPackage("java..")
                    .or(resideInAPackage("javax.."))
                    .or(resideInAPackage("io.outboxrelay.writer.."))
                    .or(resideInAPackage("io.outboxrelay.router"))
                    .or(resideInAPackage("com.fasterxml.jackson.."))
                    .or(resideInAPackage("io.opentelemetry.."))))
        .because("the writer needs nothing but the JDK at runtime")
        .check(MAIN);
  }
}
