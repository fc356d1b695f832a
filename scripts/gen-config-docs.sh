#!/usr/bin/env bash
# Regenerates config/relay.properties.example and the configuration reference in
# docs/configuration.md from the key declarations in relay-app (RelayConfigKeys).
# Builds through the reactor and installs nothing into the local Maven repository.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -pl relay-app -am compile dependency:build-classpath \
  -Dmdep.outputFile=target/config-docs.classpath -Dmdep.includeScope=runtime
java -Xmx256m -cp "relay-app/target/classes:$(cat relay-app/target/config-docs.classpath)" \
  io.outboxrelay.relay.config.ConfigReference "$(pwd)"
echo "regenerated config/relay.properties.example and docs/configuration.md"
