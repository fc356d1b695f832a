#!/usr/bin/env bash
# Runs every test on a fresh machine: installs what is missing (Java, Maven, MariaDB binaries,
# PostgreSQL), builds all modules, runs the unit tests and the integration tests against real
# private MariaDB servers and real Kafka brokers started by the tests themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-prereqs.sh
# install, not verify: the release check below builds the libraries alone, and their test
# dependencies (test-support, the change reader's test jar) must resolve. Two modules at a time:
# the libraries' tests run beside relay-app's integration tests, the longest part.
mvn -B -ntp install -T 2 "$@"
# The published artifacts: deployed to a local file repository and used by an application.
scripts/release-check.sh
