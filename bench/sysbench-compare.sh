#!/usr/bin/env bash
# sysbench-compare.sh: run `vmbench sysbench` and sysbench 1.0.20 against the
# same local MariaDB/MySQL with the same tables, rows, threads and time,
# alternating A B A B for ROUNDS rounds, and print for every round TPS,
# 95th-percentile latency, the client's CPU time per transaction and its
# involuntary and voluntary context switches per transaction (from
# /usr/bin/time: the whole client process, runtime threads included), then
# the median and the spread (min-max) of the per-round ratios
# vmbench/sysbench (with ROUNDS=1 the one ratio, and no spread). WORKLOAD
# and THREADS may be lists: each pair is measured in turn on the same
# prepared tables.
#
# Only a loopback server is accepted: this script creates COMPARE_DB and
# drops it at the end. It refuses to start (exit 1, nothing touched) when
# COMPARE_DB already exists, so it never drops a database it did not make.
# All settings are checked before anything is built or prepared.
#
# Environment (defaults in brackets):
#   MYSQL_HOST [127.0.0.1]  MYSQL_PORT [3306]  MYSQL_USER [root]  MYSQL_PASSWORD []
#   COMPARE_DB [vmbench_compare]  (letters, digits, _; must not exist; created
#     by this script, dropped at the end)
#   WORKLOAD [oltp_read_write] (or a list: "oltp_read_write oltp_read_only"), of
#     vmbench's workloads: oltp_read_write oltp_read_only oltp_write_only
#     oltp_point_select oltp_update_index oltp_update_non_index oltp_insert oltp_delete
#   TABLES [4]  TABLE_SIZE [10000]  THREADS [8] (or a list: "8 32")
#   TIME [10] (seconds per run)  ROUNDS [2]  (all whole numbers >= 1)
#   RAND_TYPE [uniform] (uniform, gaussian, special, pareto)
#   VMBENCH [built from this checkout with go build]  SYSBENCH [sysbench]
#   Needs the mariadb (or mysql) client, sysbench and /usr/bin/time.
#
# Example:
#   TABLES=4 TABLE_SIZE=10000 THREADS=8 TIME=10 bench/sysbench-compare.sh
#   WORKLOAD="oltp_read_write oltp_read_only oltp_point_select" THREADS="8 32" \
#     TABLE_SIZE=100000 TIME=20 ROUNDS=4 bench/sysbench-compare.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

sysbench_defaults

check_server
check_counts TABLES TABLE_SIZE TIME ROUNDS
check_count_list THREADS
check_ident COMPARE_DB
check_sysbench_run
need_client
check_db_absent "$COMPARE_DB"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build_vmbench "$work"

conn=(--mysql-host="$MYSQL_HOST" --mysql-port="$MYSQL_PORT" --mysql-user="$MYSQL_USER" --mysql-db="$COMPARE_DB")
[[ -n $MYSQL_PASSWORD ]] && conn+=(--mysql-password="$MYSQL_PASSWORD")
shape=(--tables="$TABLES" --table-size="$TABLE_SIZE" --rand-type="$RAND_TYPE")

trap 'drop_created; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

echo "preparing $TABLES x $TABLE_SIZE rows in $COMPARE_DB (created now) on $MYSQL_HOST:$MYSQL_PORT ..." >&2
create_db "$COMPARE_DB"
"$VMBENCH" sysbench prepare "${conn[@]}" "${shape[@]}" >&2 || die "vmbench sysbench prepare failed"

# run WORKLOAD THREADS TOOL ROUND: one timed run; appends
# "tool round tps p95 cpu tx ics vcs" to $work/results.W.T.
run() {
  local wl=$1 th=$2 tool=$3 round=$4 out=$work/$3.$4.out tm=$work/$3.$4.time
  local shape=(--tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$th" --rand-type="$RAND_TYPE")
  case $tool in
    vmbench)
      /usr/bin/time -f '%U %S %c %w' -o "$tm" "$VMBENCH" sysbench run "$wl" "${conn[@]}" "${shape[@]}" \
        --time="$TIME" --percentile=95 >"$out" 2>&1 || die "vmbench run failed: $(tail -5 "$out")" ;;
    sysbench)
      /usr/bin/time -f '%U %S %c %w' -o "$tm" "$SYSBENCH" "$wl" run "${conn[@]}" "${shape[@]}" \
        --time="$TIME" --percentile=95 --mysql-ignore-errors=1213,1020,1205 >"$out" 2>&1 ||
        die "sysbench run failed: $(tail -5 "$out")" ;;
  esac
  record_run "$tool" "$round" "$out" "$tm" "$work/results.$wl.$th"
}

# report W T: every round, and the median and spread of the per-round
# ratios vmbench/sysbench (a round is one vmbench run and the sysbench run
# right after it, so each ratio compares runs made minutes apart at most).
report() {
  local wl=$1 th=$2
  echo
  echo "$wl, $TABLES tables x $TABLE_SIZE rows, $th threads, ${TIME}s per run, rand-type $RAND_TYPE, $(rounds_phrase "$ROUNDS")"
  ratio_table "$work/results.$wl.$th" "$work"
}

alternate_runs run report
