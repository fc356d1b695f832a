#!/usr/bin/env bash
# Makes sure this Debian 12 machine has what the build and the integration tests need:
# Java 17+, Maven, MariaDB server binaries (for private mariadbd child processes), promtool, a running
# PostgreSQL service on 127.0.0.1:5432 and PostgreSQL's server binaries (for private postgres child
# processes with logical decoding). Idempotent; run as root. Prints one line per check/action.
#
# It never changes the settings of a MariaDB or PostgreSQL service that is already there: the tests
# start their own private mariadbd processes on free ports with their own datadirs.
set -euo pipefail

log() { printf 'ensure-prereqs: %s\n' "$*"; }

if [[ $(id -u) -ne 0 ]]; then
  log "not root: installing packages needs root (sudo $0)" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt_updated=false
apt_install() {
  if [[ $apt_updated == false ]]; then
    log "apt-get update"
    apt-get update -qq
    apt_updated=true
  fi
  log "apt-get install -y $*"
  apt-get install -y -qq "$@" >/dev/null
}

java_major() {
  # "openjdk version "17.0.15" 2025-04-15" -> 17 ; "1.8.0_392" -> 8
  java -version 2>&1 | awk -F'"' '/version/ {print $2; exit}' | awk -F. '{print ($1 == 1) ? $2 : $1}'
}

# --- Java 17+ -----------------------------------------------------------------------------------
if command -v java >/dev/null 2>&1 && [[ $(java_major) -ge 17 ]]; then
  log "java $(java_major) ok"
else
  apt_install openjdk-17-jdk-headless
  log "java $(java_major) installed"
fi

# --- Maven ------------------------------------------------------------------------------------------
if command -v mvn >/dev/null 2>&1; then
  log "maven ok ($(command -v mvn))"
else
  apt_install maven
  log "maven installed"
fi

# --- MariaDB binaries (mariadbd, mariadb-install-db, mariadb) ------------------------------------
# mariadbd lives in /usr/sbin, which is not always on PATH.
if command -v mariadbd >/dev/null 2>&1 || [[ -x /usr/sbin/mariadbd ]]; then
  log "mariadbd ok"
else
  # The package may start (and enable) its own service on 3306. That is harmless: private servers
  # use their own ports, sockets and datadirs.
  apt_install mariadb-server
  log "mariadbd installed (the package's own service on 3306 is left as the package set it up)"
fi
for program in mariadb-install-db mariadb; do
  if ! command -v "$program" >/dev/null 2>&1; then
    apt_install mariadb-server mariadb-client
    break
  fi
done

# --- xz (PostgresBinaries unpacks PostgreSQL 17's binaries, a .txz, with tar) ------------------
if command -v xz >/dev/null 2>&1; then
  log "xz ok"
else
  apt_install xz-utils
  log "xz installed"
fi

# --- libfaketime (a polling test runs a relay whose clock is days off) --------------------------
if [[ -n $(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null) ]]; then
  log "libfaketime ok"
else
  apt_install faketime
  log "libfaketime installed"
fi

# --- promtool (a test checks the /metrics output and the alert rules with it) --------------------
# Debian ships promtool in the prometheus package; the server it also installs is not used by tests.
if command -v promtool >/dev/null 2>&1; then
  log "promtool ok"
else
  apt_install --no-install-recommends prometheus
  log "promtool installed ($(command -v promtool || echo 'not on PATH'))"
fi

# --- PostgreSQL on 127.0.0.1:5432 ----------------------------------------------------------------
pg_ready() {
  if command -v pg_isready >/dev/null 2>&1; then
    pg_isready -q -h 127.0.0.1 -p 5432
  else
    (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null
  fi
}

if pg_ready; then
  log "postgresql accepting connections on 127.0.0.1:5432"
else
  if [[ ! -d /etc/postgresql ]] || [[ -z $(ls -A /etc/postgresql 2>/dev/null) ]]; then
    apt_install postgresql
  fi
  version=$(ls /etc/postgresql | sort -V | tail -1)
  if pg_ready; then
    log "postgresql $version started by its package"
  else
    log "pg_ctlcluster $version main start"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start
    for _ in $(seq 1 50); do
      pg_ready && break
      sleep 0.2
    done
    if pg_ready; then
      log "postgresql $version accepting connections on 127.0.0.1:5432"
    else
      log "postgresql $version did not come up: see /var/log/postgresql/postgresql-$version-main.log" >&2
      exit 1
    fi
  fi
fi

# CDC tests start private PostgreSQL servers (logical decoding) from the package's binaries, as the
# postgres OS user through setpriv: a service on 5432 run by something else is not enough.
if [[ -n $(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null) ]] && id postgres >/dev/null 2>&1; then
  log "postgresql server binaries ok ($(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1))"
else
  apt_install postgresql
  log "postgresql server binaries installed"
fi
if ! command -v setpriv >/dev/null 2>&1; then
  apt_install util-linux
fi

# The tests connect as postgres without a password over TCP (trust) and use a database 'test'.
if command -v psql >/dev/null 2>&1; then
  if psql -h 127.0.0.1 -U postgres -d postgres -w -tAc 'SELECT 1' >/dev/null 2>&1; then
    if [[ $(psql -h 127.0.0.1 -U postgres -d postgres -w -tAc \
        "SELECT 1 FROM pg_database WHERE datname = 'test'") == 1 ]]; then
      log "postgresql database 'test' ok"
    else
      log "creating postgresql database 'test'"
      psql -h 127.0.0.1 -U postgres -d postgres -w -qc 'CREATE DATABASE test'
    fi
  else
    log "warning: user postgres cannot log in over TCP without a password; the tests expect" \
      "'host all all 127.0.0.1/32 trust' in pg_hba.conf" >&2
  fi
fi

log "done"
