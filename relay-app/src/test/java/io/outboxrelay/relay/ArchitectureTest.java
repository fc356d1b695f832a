package io.outboxrelay.relay;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

/**
 * What the relay's layout promises, checked on its compiled main classes (so a fully qualified name
 * cannot slip past): the two sources are independent of each other, the failure policy they share
 * depends on neither of them nor on the publisher, and nothing a user deploys carries test support.
 * The router's own rules are in its module.
 */
class ArchitectureTest {

  /** The module\'s compiled main classes (where the class below was loaded from), not its tests. */
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .importUrl(Relay.class.getProtectionDomain().getCodeSource().getLocation());

  /**
   * The packages call downwards only: {@code cli → Relay → admin, http → source → versions,
   * publish, config → metrics, failure}. The root package's other types ({@link OutboxSource},
   * {@link RelayFailure}, {@link StartupCheckException}: the contract between the relay and its
   * sources) depend on nothing of the relay and are thrown as far down as {@code publish} (a
   * bootstrap server that never resolves is a startup check failure), so they form a layer of their
   * own beside {@code versions}, {@code publish} and {@code config}.
   */
  @Test
  void packagesCallOnlyDownwards() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("cli")
        .definedBy("io.outboxrelay.relay.cli..")
        .layer("Relay")
        .definedBy(com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf(Relay.class))
        .layer("admin")
        .definedBy("io.outboxrelay.relay.admin..")
        .layer("http")
        .definedBy("io.outboxrelay.relay.http..")
        .layer("source")
        .definedBy("io.outboxrelay.relay.source..")
        .layer("lifecycle")
        .definedBy(
            com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf(
                OutboxSource.class, RelayFailure.class, StartupCheckException.class))
        .layer("versions")
        .definedBy("io.outboxrelay.relay.versions..")
        .layer("publish")
        .definedBy("io.outboxrelay.relay.publish..")
        .layer("config")
        .definedBy("io.outboxrelay.relay.config..")
        .layer("metrics")
        .definedBy("io.outboxrelay.relay.metrics..")
        .layer("failure")
        .definedBy("io.outboxrelay.relay.failure..")
        .whereLayer("cli")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Relay")
        .mayOnlyBeAccessedByLayers("cli")
        .whereLayer("admin")
        .mayOnlyBeAccessedByLayers("cli", "Relay")
        .whereLayer("http")
        .mayOnlyBeAccessedByLayers("cli", "Relay")
        .whereLayer("source")
        .mayOnlyBeAccessedByLayers("cli", "Relay", "admin", "http")
        .whereLayer("lifecycle")
        .mayOnlyBeAccessedByLayers(
            "cli", "Relay", "admin", "http", "source", "versions", "publish", "config")
        .whereLayer("versions")
        .mayOnlyBeAccessedByLayers("cli", "Relay", "admin", "http", "source", "publish")
        .whereLayer("publish")
        .mayOnlyBeAccessedByLayers("cli", "Relay", "admin", "http", "source", "versions")
        .whereLayer("config")
        .mayOnlyBeAccessedByLayers("cli", "Relay", "admin", "http", "source", "versions", "publish")
        .because(
            "the order cli → Relay → admin/http → source → versions/publish/config →"
                + " metrics/failure keeps every package testable without the ones above it")
        .check(MAIN);
  }

  @Test
  void theCdcSourceUsesNothingOfThePollingSource() {
    noClasses()
        .that()
        .resideInAPackage("io.outboxrelay.relay.source.cdc..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.outboxrelay.relay.source.polling..")
        .because("each source stands alone; what both need lives outside them")
        .check(MAIN);
  }

  @Test
  void thePollingSourceUsesNothingOfTheCdcSource() {
    noClasses()
        .that()
        .resideInAPackage("io.outboxrelay.relay.source.polling..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.outboxrelay.relay.source.cdc..")
        .because("each source stands alone; what both need lives outside them")
        .check(MAIN);
  }

  @Test
  void theFailurePolicyUsesNeitherASourceNorThePublisher() {
    noClasses()
        .that()
        .resideInAPackage("io.outboxrelay.relay.failure..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.outboxrelay.relay.source..", "io.outboxrelay.relay.publish..")
        .because("the sources, the publisher and retention all classify failures the same way")
        .check(MAIN);
  }

  @Test
  void mainCodeUsesNoTestSupport() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.outboxrelay.relay.testing..",
            "io.outboxrelay.testsupport..",
            "org.junit..",
            "org.assertj..",
            "org.awaitility..",
            "org.testcontainers..")
        .because("nothing a user deploys carries test support")
        .check(MAIN);
  }
}
