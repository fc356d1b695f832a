#!/usr/bin/env bash
# Regenerates config/relay.properties.example and the configuration reference in
# docs/configuration.md from the key declarations in relay-app (RelayConfigKeys).
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -pl relay-app -am install -DskipTests -DskipITs
mvn -q -B -pl relay-app exec:java -Dexec.mainClass=io.outboxrelay.relay.config.ConfigReference \
  -Dexec.args="$(pwd)" -Dexec.classpathScope=runtime
echo "regenerated config/relay.properties.example and docs/configuration.md"
