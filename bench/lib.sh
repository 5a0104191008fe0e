# shellcheck shell=bash
# bench/lib.sh: checks shared by the bench/ scripts; sourced, not run.
# A script sources it right after `set -euo pipefail`:
#   . "$(dirname "$0")/lib.sh"
# It defines die (messages prefixed with the script's name, exit 1) and:
#   check_server             check_loopback and check_port MYSQL_PORT (the
#                            MYSQL_* defaults are set when this file is sourced)
#   check_loopback           MYSQL_HOST is a loopback address
#   check_port VAR           VAR is a TCP port (1-65535)
#   check_counts VAR...      each VAR is a whole number >= 1
#   check_count_list VAR     VAR is one such number or a space-separated list
#   check_ident VAR [LEN]    VAR is a database name of letters, digits and _,
#                            not a system schema, at most 64-LEN characters
#                            (LEN: the longest suffix the script appends)
#   need_client              sets client to the mariadb or mysql client
#   sql STATEMENTS           runs STATEMENTS with $client (MYSQL_* settings)
#   check_db_absent DB...    refuses to start when a DB already exists
#   create_db DB             CREATE DATABASE (no IF NOT EXISTS); records it
#   drop_created             drops only the databases create_db made
#   rounds_phrase N          "1 round (A B)" or "N rounds (A B A B ...)"
# Nothing here touches a server except sql, check_db_absent (a read),
# create_db and drop_created.

prog=$(basename "$0" .sh)
die() { echo "$prog: $*" >&2; exit 1; }

# The server of the database scripts: MYSQL_HOST [127.0.0.1],
# MYSQL_PORT [3306], MYSQL_USER [root], MYSQL_PASSWORD [].
MYSQL_HOST=${MYSQL_HOST:-127.0.0.1}
MYSQL_PORT=${MYSQL_PORT:-3306}
MYSQL_USER=${MYSQL_USER:-root}
MYSQL_PASSWORD=${MYSQL_PASSWORD:-}

# check_server: a loopback host and a TCP port.
check_server() {
  check_loopback
  check_port MYSQL_PORT
}

check_loopback() {
  # An IPv4 address in 127.0.0.0/8 written as four numbers, localhost or
  # ::1; a name such as 127.example.com is not a loopback address.
  if ! [[ $MYSQL_HOST =~ ^127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ || $MYSQL_HOST == localhost || $MYSQL_HOST == ::1 ]]; then
    die "MYSQL_HOST=$MYSQL_HOST is not a loopback address (127.x.y.z, localhost or ::1); this script only targets a local server"
  fi
}

check_port() {
  if ! [[ ${!1} =~ ^[1-9][0-9]{0,4}$ ]] || ((${!1} > 65535)); then
    die "$1=${!1} is not a TCP port (1-65535)"
  fi
}

check_counts() {
  local v
  for v in "$@"; do
    [[ ${!v} =~ ^[1-9][0-9]{0,17}$ ]] || die "$v=${!v} is not a whole number >= 1 (digits, no leading 0)"
  done
}

check_count_list() {
  [[ ${!1} =~ ^[1-9][0-9]{0,17}( +[1-9][0-9]{0,17})*$ ]] ||
    die "$1=${!1} is not a whole number >= 1 or a space-separated list of them (e.g. \"8 32\")"
}

check_ident() {
  local v=$1 val=${!1} max=$((64 - ${2:-0}))
  [[ $val =~ ^[A-Za-z0-9_]+$ ]] || die "$v=$val: use letters, digits and _ only"
  case ${val,,} in
    mysql|information_schema|performance_schema|sys) die "$v=$val is a system schema; pick another name" ;;
  esac
  ((${#val} <= max)) || die "$v=$val is longer than $max characters"
}

need_client() {
  client=$(command -v mariadb || command -v mysql) ||
    die "no mariadb or mysql client found (Debian/Ubuntu: sudo apt-get install -y mariadb-client)"
}

sql() {
  MYSQL_PWD=${MYSQL_PASSWORD:-} "$client" -N -B -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u "$MYSQL_USER" -e "$1"
}

check_db_absent() {
  local db found
  for db in "$@"; do
    found=$(sql "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '$db'" 2>/dev/null) ||
      die "cannot query $MYSQL_HOST:$MYSQL_PORT as $MYSQL_USER: $(sql 'SELECT 1' 2>&1 | tail -1)"
    [[ $found == 0 ]] || die "database $db already exists on $MYSQL_HOST:$MYSQL_PORT; this script creates" \
      "and drops its own database, so it will not use it (drop it yourself, or pick another name)"
  done
}

created_dbs=()
create_db() {
  local err
  err=$(sql "CREATE DATABASE \`$1\`" 2>&1) || die "cannot create database $1: $err"
  created_dbs+=("$1")
}

drop_created() {
  local db
  for db in "${created_dbs[@]}"; do
    sql "DROP DATABASE IF EXISTS \`$db\`" >/dev/null 2>&1 || echo "$prog: could not drop database $db" >&2
  done
  created_dbs=()
}

rounds_phrase() {
  case $1 in
    1) echo "1 round (A B)" ;;
    2) echo "2 rounds (A B A B)" ;;
    *) echo "$1 rounds (A B A B ...)" ;;
  esac
}
