#!/usr/bin/env bash
# load-compare.sh: compare the load rates of the prepare steps on the same
# local MariaDB/MySQL, alternating A B A B for ROUNDS rounds:
#   1. sysbench 1.0.20 `oltp_read_write prepare` vs `vmbench sysbench prepare`
#      (TABLES x TABLE_SIZE rows, THREADS loader threads, secondary index k_
#      included, as both create it after the load);
#   2. when GO_TPC_SRC names a go-tpc source checkout: go-tpc's
#      `tpcc prepare --no-check` (built from it with go build) vs
#      `vmbench tpcc prepare` at WAREHOUSES warehouses, THREADS threads;
#      skipped with a message when GO_TPC_SRC is unset; when it is set it
#      must hold cmd/go-tpc, checked before any round runs.
# Each prepare runs into an empty database and is timed by the wall clock
# (/usr/bin/time), process start to exit. Rows are counted: sysbench's are
# TABLES x TABLE_SIZE (vmbench checks its counts), go-tpc's and vmbench's
# TPC-C rows by SELECT COUNT(*) of the nine tables afterwards. MB are
# decimal (10^6 bytes) of the generated data as vmbench reports it (its
# summary line); the peer's rows are the same shape, so its MB is its rows
# times vmbench's bytes per row. Printed: every round, the medians and the
# ratios vmbench/peer of the medians (with ROUNDS=1 a "median" is the one
# round's figure).
#
# Only a loopback server is accepted: this script creates its databases
# (COMPARE_DB_sb, and with GO_TPC_SRC COMPARE_DB_gotpc and COMPARE_DB_tpcc),
# empties them between rounds and drops them at the end. It refuses to start
# (exit 1, nothing touched) when any of them already exists, so it never
# drops a database it did not make. All settings are checked before anything
# is built or loaded.
#
# Environment (defaults in brackets):
#   MYSQL_HOST [127.0.0.1]  MYSQL_PORT [3306]  MYSQL_USER [root]  MYSQL_PASSWORD []
#   COMPARE_DB [vmbench_load_compare]  (letters, digits, _: prefix of the
#     databases above; none may exist; created by this script, dropped at the end)
#   TABLES [4]  TABLE_SIZE [100000]  THREADS [4]  ROUNDS [2]  WAREHOUSES [2]
#     (all whole numbers >= 1)
#   VMBENCH [built from this checkout]  SYSBENCH [sysbench]
#   GO_TPC_SRC []  (a go-tpc source checkout; unset: the tpcc group is skipped)
#   Needs the mariadb (or mysql) client, sysbench and /usr/bin/time.
#
# Example:
#   ROUNDS=3 GO_TPC_SRC=$HOME/src/go-tpc bench/load-compare.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

COMPARE_DB=${COMPARE_DB:-vmbench_load_compare}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-100000}
THREADS=${THREADS:-4}
ROUNDS=${ROUNDS:-2}
WAREHOUSES=${WAREHOUSES:-2}
SYSBENCH=${SYSBENCH:-sysbench}
GO_TPC_SRC=${GO_TPC_SRC:-}

check_server
check_counts TABLES TABLE_SIZE THREADS ROUNDS WAREHOUSES
check_ident COMPARE_DB 6 # + _gotpc
if [[ -n $GO_TPC_SRC ]]; then
  [[ -d $GO_TPC_SRC/cmd/go-tpc ]] || die "GO_TPC_SRC=$GO_TPC_SRC has no cmd/go-tpc; is it a go-tpc checkout?"
fi
command -v "$SYSBENCH" >/dev/null ||
  die "sysbench not found; install sysbench 1.0.20 (Debian/Ubuntu: sudo apt-get install -y sysbench)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (Debian/Ubuntu: sudo apt-get install -y time)"
need_client
dbs=("${COMPARE_DB}_sb")
[[ -z $GO_TPC_SRC ]] || dbs+=("${COMPARE_DB}_gotpc" "${COMPARE_DB}_tpcc")
check_db_absent "${dbs[@]}"

work=$(mktemp -d)
trap 'drop_created; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

build_vmbench "$work"
echo "server: $(sql 'SELECT VERSION()'), local_infile=$(sql 'SELECT @@local_infile')" >&2

for d in "${dbs[@]}"; do create_db "$d"; done

# fresh DB: empty database DB, one this script created: drop it and create it again.
fresh() {
  [[ " ${created_dbs[*]} " == *" $1 "* ]] || die "internal: $1 was not created by this script"
  sql "DROP DATABASE \`$1\`; CREATE DATABASE \`$1\`"
}

# timed OUT CMD...: runs CMD with its output in OUT, the wall seconds in OUT.time.
timed() {
  local out=$1; shift
  /usr/bin/time -f '%e' -o "$out.time" "$@" >"$out" 2>&1 || die "$* failed: $(tail -5 "$out")"
}

# vmbench_bytes OUT: the bytes of vmbench's summary line "... rows (N MB) ...".
vmbench_bytes() { sed -n 's/^Loaded .* rows (\([0-9.]*\) MB).*/\1/p' "$1" | tail -1 | awk '{printf "%d", $1 * 1e6}'; }

# record GROUP TOOL ROUND ROWS BYTES SECONDS
record() {
  echo "$1 $2 $3 $4 $5 $6" >>"$work/results"
  awk -v g="$1" -v t="$2" -v r="$3" -v n="$4" -v b="$5" -v s="$6" 'BEGIN {
    printf "round %d %s %s: %d rows in %.2f s: %.0f rows/s, %.1f MB/s\n", r, g, t, n, s, n / s, b / 1e6 / s }' >&2
}

sb_conn=(--mysql-host="$MYSQL_HOST" --mysql-port="$MYSQL_PORT" --mysql-user="$MYSQL_USER" --mysql-db="${dbs[0]}")
[[ -n $MYSQL_PASSWORD ]] && sb_conn+=(--mysql-password="$MYSQL_PASSWORD")
sb_shape=(--tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$THREADS")
sb_rows=$((TABLES * TABLE_SIZE))
sb_bpr= # vmbench's bytes per sbtest row, from its first run

sysbench_round() {
  local r=$1 out=$work/sb.$1
  fresh "${dbs[0]}"
  timed "$out.vmbench" "$VMBENCH" sysbench prepare "${sb_conn[@]}" "${sb_shape[@]}"
  local bytes; bytes=$(vmbench_bytes "$out.vmbench")
  [[ -n $bytes ]] || die "no summary line in vmbench's output: $(tail -3 "$out.vmbench")"
  [[ -n $sb_bpr ]] || sb_bpr=$(awk -v b="$bytes" -v n="$sb_rows" 'BEGIN { print b / n }')
  record sysbench vmbench "$r" "$sb_rows" "$bytes" "$(cat "$out.vmbench.time")"
  grep -m1 'not available' "$out.vmbench" >&2 || true
  fresh "${dbs[0]}"
  timed "$out.sysbench" "$SYSBENCH" oltp_read_write "${sb_conn[@]}" "${sb_shape[@]}" prepare
  record sysbench sysbench "$r" "$sb_rows" "$(awk -v p="$sb_bpr" -v n="$sb_rows" 'BEGIN { printf "%d", p * n }')" \
    "$(cat "$out.sysbench.time")"
}

tpcc_tables=(item warehouse district customer history orders new_order order_line stock)
# tpcc_rows DB: the rows of the nine TPC-C tables of DB.
tpcc_rows() {
  local q="SELECT 0" t
  for t in "${tpcc_tables[@]}"; do q+=" + (SELECT COUNT(*) FROM \`$1\`.\`$t\`)"; done
  sql "$q"
}
tp_bpr=

tpcc_round() {
  local r=$1 out=$work/tp.$1 rows bytes
  fresh "${dbs[2]}"
  timed "$out.vmbench" "$VMBENCH" tpcc prepare -H "$MYSQL_HOST" -P "$MYSQL_PORT" -U "$MYSQL_USER" -D "${dbs[2]}" \
    --warehouses "$WAREHOUSES" -T "$THREADS"
  rows=$(tpcc_rows "${dbs[2]}")
  bytes=$(vmbench_bytes "$out.vmbench")
  [[ -n $bytes ]] || die "no summary line in vmbench's output: $(tail -3 "$out.vmbench")"
  [[ -n $tp_bpr ]] || tp_bpr=$(awk -v b="$bytes" -v n="$rows" 'BEGIN { print b / n }')
  record tpcc vmbench "$r" "$rows" "$bytes" "$(cat "$out.vmbench.time")"
  fresh "${dbs[1]}"
  timed "$out.gotpc" "$work/go-tpc" tpcc prepare -H "$MYSQL_HOST" -P "$MYSQL_PORT" -U "$MYSQL_USER" -D "${dbs[1]}" \
    --warehouses "$WAREHOUSES" -T "$THREADS" --no-check
  rows=$(tpcc_rows "${dbs[1]}")
  record tpcc go-tpc "$r" "$rows" "$(awk -v p="$tp_bpr" -v n="$rows" 'BEGIN { printf "%d", p * n }')" \
    "$(cat "$out.gotpc.time")"
}

for ((r = 1; r <= ROUNDS; r++)); do sysbench_round "$r"; done
if [[ -n $GO_TPC_SRC ]]; then
  [[ -z $MYSQL_PASSWORD ]] || export MYSQL_PWD=$MYSQL_PASSWORD
  echo "building go-tpc from $GO_TPC_SRC ..." >&2
  (cd "$GO_TPC_SRC" && go build -o "$work/go-tpc" ./cmd/go-tpc) || die "building go-tpc failed"
  for ((r = 1; r <= ROUNDS; r++)); do tpcc_round "$r"; done
else
  echo "GO_TPC_SRC is unset: skipping go-tpc's tpcc prepare vs vmbench tpcc prepare" >&2
fi

echo
tpcc_what="$WAREHOUSES warehouses"
[[ -n $GO_TPC_SRC ]] || tpcc_what="skipped (GO_TPC_SRC unset)"
echo "prepare load rates on $MYSQL_HOST:$MYSQL_PORT, $(rounds_phrase "$ROUNDS"), $THREADS threads;" \
  "sysbench: $TABLES x $TABLE_SIZE rows; tpcc: $tpcc_what; MB = 10^6 bytes; wall-clock seconds"
sort -k1,1 -k2,2 -k3,3n "$work/results" | awk '
  function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  BEGIN { printf "%-9s %-9s %5s %10s %8s %12s %8s\n", "group", "tool", "round", "rows", "s", "rows/s", "MB/s" }
  {
    k = $1 " " $2; n[k]++; rps[k, n[k]] = $4 / $6; mbs[k, n[k]] = $5 / 1e6 / $6
    printf "%-9s %-9s %5d %10d %8.2f %12.0f %8.1f\n", $1, $2, $3, $4, $6, $4 / $6, $5 / 1e6 / $6
  }
  END {
    for (k in n) {
      delete a; for (i = 1; i <= n[k]; i++) a[i] = rps[k, i]; mr[k] = median(a, n[k])
      delete a; for (i = 1; i <= n[k]; i++) a[i] = mbs[k, i]; mm[k] = median(a, n[k])
    }
    split("sysbench vmbench sysbench|tpcc vmbench go-tpc", pairs, "|")
    for (p = 1; p <= 2; p++) {
      split(pairs[p], f, " "); v = f[1] " " f[2]; o = f[1] " " f[3]
      if (!(v in n) || !(o in n)) continue
      lab = n[v] > 1 ? "med" : "(one)" # one round: its figures, no median
      printf "%-9s %-9s %5s %10s %8s %12.0f %8.1f\n", f[1], f[2], lab, "", "", mr[v], mm[v]
      printf "%-9s %-9s %5s %10s %8s %12.0f %8.1f\n", f[1], f[3], lab, "", "", mr[o], mm[o]
      printf "%-9s vmbench/%s rows/s x%.2f, MB/s x%.2f\n", f[1], f[3], mr[v] / mr[o], mm[v] / mm[o]
    }
  }'
