#!/usr/bin/env bash
# pgsql-compare.sh: run `vmbench sysbench` and sysbench 1.0.20's pgsql
# driver against the same local PostgreSQL with the same tables, rows,
# threads and time, alternating A B A B for ROUNDS rounds, and print for
# every round TPS, 95th-percentile latency, the client's CPU time per 1000
# transactions (cpu_us/tx is per transaction in microseconds, the same
# figure) and its context switches per transaction (from /usr/bin/time: the
# whole client process), then the median and the spread (min-max) of the
# per-round ratios vmbench/sysbench. WORKLOAD and THREADS may be lists.
#
# The tables are prepared once by vmbench (sysbench 1.0's pgsql schema:
# id SERIAL, k index; loaded by COPY) and both tools run on them. Only a
# loopback server is accepted: this script creates COMPARE_DB and drops it
# at the end, and refuses to start (exit 1, nothing touched) when
# COMPARE_DB already exists. All settings are checked before anything is
# built or prepared.
#
# Environment (defaults in brackets):
#   PGSQL_HOST [127.0.0.1]  PGSQL_PORT [5432]  PGSQL_USER [postgres]
#   PGSQL_PASSWORD [] (passed to both tools and psql as $PGPASSWORD)
#   COMPARE_DB [vmbench_compare] (letters, digits, _; must not exist)
#   WORKLOAD [oltp_read_write] (or a list), of oltp_read_write oltp_read_only
#     oltp_write_only oltp_point_select oltp_update_index
#     oltp_update_non_index oltp_insert oltp_delete
#   TABLES [4]  TABLE_SIZE [10000]  THREADS [8] (or a list: "8 32")
#   TIME [10] (seconds per run)  ROUNDS [2]  RAND_TYPE [uniform]
#   VMBENCH [built from this checkout]  SYSBENCH [sysbench]
#   Needs psql, sysbench 1.0 built with its pgsql driver (Debian's is:
#   sudo apt-get install -y sysbench) and /usr/bin/time.
#
# Example:
#   PGSQL_PORT=5432 THREADS="8 32" TIME=20 ROUNDS=2 bench/pgsql-compare.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PGSQL_HOST=${PGSQL_HOST:-127.0.0.1}
PGSQL_PORT=${PGSQL_PORT:-5432}
PGSQL_USER=${PGSQL_USER:-postgres}
PGSQL_PASSWORD=${PGSQL_PASSWORD:-}
sysbench_defaults

check_loopback PGSQL_HOST
check_port PGSQL_PORT
check_counts TABLES TABLE_SIZE TIME ROUNDS
check_count_list THREADS
check_ident COMPARE_DB 1 # PostgreSQL names hold 63 characters
[[ $PGSQL_USER =~ ^[A-Za-z0-9_]+$ ]] || die "PGSQL_USER=$PGSQL_USER: use letters, digits and _ only"
check_sysbench_run
sbhelp=$("$SYSBENCH" --help 2>&1 || true) # not piped into grep -q: its early exit would fail the pipe
[[ $sbhelp == *"pgsql - "* ]] ||
  die "$SYSBENCH has no pgsql driver (sysbench --help lists its drivers); install one built --with-pgsql"
command -v psql >/dev/null || die "psql not found (Debian/Ubuntu: sudo apt-get install -y postgresql-client)"

export PGPASSWORD=$PGSQL_PASSWORD
psql_admin() { psql -X -q -A -t -h "$PGSQL_HOST" -p "$PGSQL_PORT" -U "$PGSQL_USER" -d postgres -c "$1"; }
found=$(psql_admin "SELECT count(*) FROM pg_database WHERE datname = '$COMPARE_DB'" 2>&1) ||
  die "cannot query $PGSQL_HOST:$PGSQL_PORT as $PGSQL_USER: $found"
[[ $found == 0 ]] || die "database $COMPARE_DB already exists on $PGSQL_HOST:$PGSQL_PORT; this script creates" \
  "and drops its own database, so it will not use it (drop it yourself, or pick another name)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build_vmbench "$work"

created=
drop_db() {
  [[ -n $created ]] || return 0
  psql_admin "DROP DATABASE IF EXISTS \"$COMPARE_DB\" WITH (FORCE)" >/dev/null 2>&1 ||
    echo "$prog: could not drop database $COMPARE_DB" >&2
  created=
}
trap 'drop_db; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# Both tools take sysbench's pgsql options; the password goes by $PGPASSWORD
# to vmbench (libpq's variable) and by --pgsql-password to sysbench.
conn=(--db-driver=pgsql --pgsql-host="$PGSQL_HOST" --pgsql-port="$PGSQL_PORT" --pgsql-user="$PGSQL_USER" --pgsql-db="$COMPARE_DB")
sbconn=("${conn[@]}")
[[ -n $PGSQL_PASSWORD ]] && sbconn+=(--pgsql-password="$PGSQL_PASSWORD")

echo "preparing $TABLES x $TABLE_SIZE rows in $COMPARE_DB (created now) on $PGSQL_HOST:$PGSQL_PORT ..." >&2
err=$(psql_admin "CREATE DATABASE \"$COMPARE_DB\"" 2>&1) || die "cannot create database $COMPARE_DB: $err"
created=1
PGSSLMODE=${PGSSLMODE:-disable} "$VMBENCH" sysbench prepare "${conn[@]}" --tables="$TABLES" --table-size="$TABLE_SIZE" \
  --rand-type="$RAND_TYPE" >&2 || die "vmbench sysbench prepare failed"
psql -X -q -h "$PGSQL_HOST" -p "$PGSQL_PORT" -U "$PGSQL_USER" -d "$COMPARE_DB" -c "VACUUM ANALYZE" >&2

# run WORKLOAD THREADS TOOL ROUND: one timed run; appends
# "tool round tps p95 cpu tx ics vcs" to $work/results.W.T.
run() {
  local wl=$1 th=$2 tool=$3 round=$4 out=$work/$3.$4.out tm=$work/$3.$4.time
  local shape=(--tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$th" --rand-type="$RAND_TYPE" --time="$TIME" --percentile=95)
  case $tool in
    vmbench)
      PGSSLMODE=${PGSSLMODE:-disable} /usr/bin/time -f '%U %S %c %w' -o "$tm" "$VMBENCH" sysbench run "$wl" "${conn[@]}" "${shape[@]}" \
        >"$out" 2>&1 || die "vmbench run failed: $(tail -5 "$out")" ;;
    sysbench)
      /usr/bin/time -f '%U %S %c %w' -o "$tm" "$SYSBENCH" "$wl" run "${sbconn[@]}" "${shape[@]}" \
        >"$out" 2>&1 || die "sysbench run failed: $(tail -5 "$out")" ;;
  esac
  record_run "$tool" "$round" "$out" "$tm" "$work/results.$wl.$th"
}

# report W T: every round, and the median and spread of the per-round
# ratios vmbench/sysbench.
report() {
  local wl=$1 th=$2
  echo
  echo "$wl on PostgreSQL $(psql_admin 'SHOW server_version' | cut -d' ' -f1), $TABLES tables x $TABLE_SIZE rows, $th threads, ${TIME}s per run, rand-type $RAND_TYPE, $(rounds_phrase "$ROUNDS")"
  echo "(client CPU per 1000 transactions = cpu_us/tx in ms)"
  ratio_table "$work/results.$wl.$th" "$work"
}

alternate_runs run report
