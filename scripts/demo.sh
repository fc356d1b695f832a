#!/usr/bin/env bash
# The demo, on a fresh machine: installs what is missing, builds, starts a private MariaDB with a
# binlog and a Kafka broker, runs the relay (CDC mode; --mode polling for polling), writes order
# events through the outbox writer in business transactions, shows them arriving in Kafka and
# applied once by an idempotent consumer (a redelivered event is ignored), with each event's trace
# id at the service, in the Kafka headers and in the consumer's span, and stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-prereqs.sh
echo "building (mvn install, tests skipped)..."
mvn -B -q -ntp install -DskipTests -DskipITs
exec java -Doutbox.relay.dist="$PWD/relay-app/target/dist/outbox-relay" -Xmx512m -cp "examples/target/classes:$(cat examples/target/examples.classpath)" io.outboxrelay.examples.Demo "$@"
