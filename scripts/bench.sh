#!/usr/bin/env bash
# Runs the benchmark and prints a table of figures. Run it on a quiet machine (no tests running):
# it starts a private MariaDB and a Kafka broker, and the relay as a child process.
#   scripts/bench.sh                 # everything
#   scripts/bench.sh --only cdc      # one group; see tools/bench/src/main/java/io/outboxrelay/bench/Bench.java
#   scripts/bench.sh --only peers    # the relay beside Kafka Connect + Debezium + EventRouter and
#                                    # Debezium Server, whose distribution (745 MiB) it downloads once
#                                    # into ~/.cache/outbox-relay-bench; it needs a JDK 21+ (found in
#                                    # /usr/lib/jvm, or --server-java <dir>)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-prereqs.sh >/dev/null
mvn -B -q -ntp install -DskipTests -DskipITs
exec java -Doutbox.relay.dist="$PWD/relay-app/target/dist/outbox-relay" \
  -Doutbox.bench.connect.classpath="$PWD/tools/bench/peers/target/connect-worker.classpath" \
  -Doutbox.bench.connect.plugins="$PWD/tools/bench/peers/target/connect-plugins" \
  -Xmx1g -cp "tools/bench/target/classes:$(cat tools/bench/target/bench.classpath)" io.outboxrelay.bench.Bench "$@"
