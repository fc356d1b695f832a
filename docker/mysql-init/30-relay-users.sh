# Users and grants for the compose stack: config/mysql/relay-grants.sql with MySQL's privilege
# names (REPLICATION CLIENT, not MariaDB's BINLOG MONITOR) and the passwords compose passes in.
#
# The mysql image runs /docker-entrypoint-initdb.d/* once, on an empty data directory, in file-name
# order: 10-outbox-schema.sql and 20-relay-storage.sql (mounted from config/mysql, run in
# MYSQL_DATABASE=app) come first, so the tables exist when their grants are given here.
# Keep this file NOT executable: the entrypoint then sources it, which provides
# docker_process_sql (the mysql client as root on the init server's socket).
if ! declare -F docker_process_sql > /dev/null; then
  echo "$0: must be sourced by the mysql image's entrypoint (chmod -x it)" >&2
  exit 1
fi
: "${OUTBOX_DB_PASSWORD:?must be set: the password of outbox_relay}"
: "${APP_DB_PASSWORD:?must be set: the password of app}"

# A value as an SQL string literal: ' doubled, \ escaped (the default sql_mode treats it as an escape).
_outbox_sql_string() { local v=${1//\\/\\\\}; v=${v//\'/\'\'}; printf "'%s'" "$v"; }

docker_process_sql <<EOSQL
-- The application: writes outbox rows in its business transactions.
CREATE USER 'app'@'%' IDENTIFIED BY $(_outbox_sql_string "$APP_DB_PASSWORD");
GRANT SELECT, INSERT, UPDATE, DELETE ON app.* TO 'app'@'%';

-- The relay in CDC mode (source.user in docker/relay.properties).
CREATE USER 'outbox_relay'@'%' IDENTIFIED BY $(_outbox_sql_string "$OUTBOX_DB_PASSWORD");
GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'outbox_relay'@'%';
GRANT SELECT ON app.outbox_events TO 'outbox_relay'@'%';
GRANT SELECT, INSERT, DELETE ON app.outbox_relay_offsets TO 'outbox_relay'@'%';
GRANT SELECT, INSERT, DELETE ON app.outbox_relay_schema_history TO 'outbox_relay'@'%';
GRANT SELECT, INSERT, UPDATE ON app.outbox_relay_leases TO 'outbox_relay'@'%';
EOSQL
unset -f _outbox_sql_string
