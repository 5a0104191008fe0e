#!/usr/bin/env bash
# tpcc-bench.sh: measure vmbench's TPC-C loader and driver on a local
# MariaDB/MySQL so that later changes can be compared: the load rate of
# `vmbench tpcc prepare` (rows/s) and tpmC, TPS and response times of
# `vmbench tpcc run` at a fixed thread count without waits (go-tpc's closed
# loop). It also records the client's CPU seconds per 1,000 transactions,
# since the driver must never be what limits the figures.
#
# Only a loopback server is accepted: this script creates BENCH_DB, and at
# the end drops its tables (`vmbench tpcc cleanup`) and the database. It
# refuses to start (exit 1, nothing touched) when BENCH_DB already exists,
# so it never drops a database it did not make. All settings are checked
# before anything is built or loaded.
#
# Environment (defaults in brackets):
#   MYSQL_HOST [127.0.0.1]  MYSQL_PORT [3306]  MYSQL_USER [root]  MYSQL_PASSWORD []
#   BENCH_DB [vmbench_tpcc_bench]  (letters, digits, _; must not exist; created
#     by this script, dropped at the end)
#   WAREHOUSES [2]  LOAD_THREADS [2]  THREADS [8]  TIME [30] (seconds)
#     (all whole numbers >= 1)
#   VMBENCH [built from this checkout with go build]
#   Needs the mariadb (or mysql) client and /usr/bin/time.
#
# Example:
#   WAREHOUSES=4 THREADS=16 TIME=60 bench/tpcc-bench.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

BENCH_DB=${BENCH_DB:-vmbench_tpcc_bench}
WAREHOUSES=${WAREHOUSES:-2}
LOAD_THREADS=${LOAD_THREADS:-2}
THREADS=${THREADS:-8}
TIME=${TIME:-30}

check_server
check_counts WAREHOUSES LOAD_THREADS THREADS TIME
check_ident BENCH_DB
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (Debian/Ubuntu: sudo apt-get install -y time)"
need_client
check_db_absent "$BENCH_DB"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build_vmbench "$work"
export TPCC_PASSWORD=$MYSQL_PASSWORD
db=(-H "$MYSQL_HOST" -P "$MYSQL_PORT" -U "$MYSQL_USER" -D "$BENCH_DB") # cleanup takes no --warehouses
conn=("${db[@]}" --warehouses "$WAREHOUSES")

# cleanup: drop the tables with vmbench (its errors shown), then the database
# this script created.
cleanup() {
  if ((${#created_dbs[@]})); then
    "$VMBENCH" tpcc cleanup "${db[@]}" >"$work/cleanup.out" 2>&1 ||
      echo "tpcc-bench: vmbench tpcc cleanup failed: $(tail -3 "$work/cleanup.out")" >&2
  fi
  drop_created
}
trap 'cleanup; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
create_db "$BENCH_DB"

# cpu_seconds FILE: user+sys seconds from /usr/bin/time -f output.
cpu_seconds() { awk '{print $1 + $2}' "$1"; }

echo "== load: $WAREHOUSES warehouses, $LOAD_THREADS at a time"
/usr/bin/time -f '%U %S' -o "$work/load.cpu" "$VMBENCH" tpcc prepare "${conn[@]}" --threads "$LOAD_THREADS" 2>"$work/load.err" \
  || { cat "$work/load.err" >&2; die "prepare failed"; }
loaded=$(grep '^Loaded' "$work/load.err" | tail -1) ||
  die "prepare printed no \"Loaded ...\" summary line; its output: $(tail -5 "$work/load.err")"
echo "$loaded"

echo "== run: $THREADS threads, no waits, ${TIME}s"
/usr/bin/time -f '%U %S' -o "$work/run.cpu" "$VMBENCH" tpcc run "${conn[@]}" --threads "$THREADS" --time "$TIME" \
  --report-interval 0 >"$work/run.out" || { cat "$work/run.out" >&2; die "run failed"; }
sed -n '/^Transaction/,/^Errors/p' "$work/run.out"

tps=$(awk '/^TPS \(all transactions\)/ {print $4}' "$work/run.out")
tpmc=$(awk '/^tpmC:/ {print $2}' "$work/run.out")
cpu=$(cpu_seconds "$work/run.cpu")
per1k=$(awk -v c="$cpu" -v t="$tps" -v s="$TIME" 'BEGIN { if (t > 0) printf "%.3f", c / (t * s) * 1000; else print "n/a" }')
rate=$(echo "$loaded" | sed -n 's/.* s: \([0-9,]*\) rows\/s, .*/\1/p')

echo
echo "== summary ($(date -u +%Y-%m-%dT%H:%MZ), $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown))"
printf '%-28s %s\n' "load rate (rows/s)" "${rate:-n/a}" "tpmC ($THREADS threads, no wait)" "$tpmc" \
  "TPS (all transactions)" "$tps" "client CPU s / 1,000 tx" "$per1k"
