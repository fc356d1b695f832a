package io.outboxrelay.relay;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

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
