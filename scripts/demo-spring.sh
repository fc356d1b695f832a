#!/usr/bin/env bash
# The Spring Boot services demo: an order service (Spring Data JPA, the starter's Outbox bean,
# Flyway with the shipped outbox migrations) and a notification service (an @IdempotentListener
# @KafkaListener), with the relay distribution in CDC mode (exactly-once) on a private MariaDB and
# a Kafka broker it starts itself. Installs what is missing, builds, runs; exit code 0 when every
# step showed what it describes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-prereqs.sh
echo "building (mvn install, tests skipped)..."
mvn -B -q -ntp install -DskipTests -DskipITs
exec java -Doutbox.relay.dist="$PWD/relay-app/target/dist/outbox-relay" -Xmx768m \
  -cp "examples/spring-services/target/classes:$(cat examples/spring-services/target/spring-services.classpath)" \
  io.outboxrelay.examples.spring.SpringServicesDemo "$@"
