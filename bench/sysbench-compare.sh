#!/usr/bin/env bash
# sysbench-compare.sh: run `vmbench sysbench` and sysbench 1.0.20 against the
# same local MariaDB/MySQL with the same tables, rows, threads and time,
# alternating A B A B for ROUNDS rounds, and print TPS, 95th-percentile latency
# and the client's CPU seconds per 1,000 transactions side by side, with the
# ratios vmbench/sysbench.
#
# Only a loopback server is accepted: this script creates and drops a database.
#
# Environment (defaults in brackets):
#   MYSQL_HOST [127.0.0.1]  MYSQL_PORT [3306]  MYSQL_USER [root]  MYSQL_PASSWORD []
#   COMPARE_DB [vmbench_compare]  (created by prepare, dropped at the end)
#   WORKLOAD [oltp_read_write]  TABLES [4]  TABLE_SIZE [10000]  THREADS [8]
#   TIME [10] (seconds per run)  ROUNDS [2]  RAND_TYPE [uniform]
#   VMBENCH [built from this checkout with go build]  SYSBENCH [sysbench]
#
# Example:
#   TABLES=4 TABLE_SIZE=10000 THREADS=8 TIME=10 bench/sysbench-compare.sh
set -euo pipefail

MYSQL_HOST=${MYSQL_HOST:-127.0.0.1}
MYSQL_PORT=${MYSQL_PORT:-3306}
MYSQL_USER=${MYSQL_USER:-root}
MYSQL_PASSWORD=${MYSQL_PASSWORD:-}
COMPARE_DB=${COMPARE_DB:-vmbench_compare}
WORKLOAD=${WORKLOAD:-oltp_read_write}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}
THREADS=${THREADS:-8}
TIME=${TIME:-10}
ROUNDS=${ROUNDS:-2}
RAND_TYPE=${RAND_TYPE:-uniform} # sysbench 1.0.20 defaults to special; vmbench to uniform
SYSBENCH=${SYSBENCH:-sysbench}

die() { echo "sysbench-compare: $*" >&2; exit 1; }

case "$MYSQL_HOST" in
  127.*|localhost|::1) ;;
  *) die "MYSQL_HOST=$MYSQL_HOST is not a loopback address; this script only targets a local server" ;;
esac
for v in MYSQL_PORT TABLES TABLE_SIZE THREADS TIME ROUNDS; do
  [[ ${!v} =~ ^[0-9]+$ ]] || die "$v=${!v} is not a whole number"
done
command -v "$SYSBENCH" >/dev/null ||
  die "sysbench not found; install sysbench 1.0.20 (Debian/Ubuntu: sudo apt-get install -y sysbench)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (Debian/Ubuntu: sudo apt-get install -y time)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ -z ${VMBENCH:-} ]]; then
  root=$(cd "$(dirname "$0")/.." && pwd)
  echo "building vmbench from $root ..." >&2
  (cd "$root" && go build -o "$work/vmbench" ./cmd/vmbench) || die "go build failed; set VMBENCH to a built binary"
  VMBENCH=$work/vmbench
fi
[[ -x $VMBENCH ]] || die "VMBENCH=$VMBENCH is not executable"

conn=(--mysql-host="$MYSQL_HOST" --mysql-port="$MYSQL_PORT" --mysql-user="$MYSQL_USER" --mysql-db="$COMPARE_DB")
[[ -n $MYSQL_PASSWORD ]] && conn+=(--mysql-password="$MYSQL_PASSWORD")
shape=(--tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$THREADS" --rand-type="$RAND_TYPE")

cleanup() {
  "$VMBENCH" sysbench cleanup "${conn[@]}" --tables="$TABLES" >/dev/null 2>&1 || true
  if command -v mariadb >/dev/null || command -v mysql >/dev/null; then
    client=$(command -v mariadb || command -v mysql)
    MYSQL_PWD=$MYSQL_PASSWORD "$client" -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u "$MYSQL_USER" \
      -e "DROP DATABASE IF EXISTS \`$COMPARE_DB\`" >/dev/null 2>&1 || true
  fi
}
trap 'cleanup; rm -rf "$work"' EXIT

echo "preparing $TABLES x $TABLE_SIZE rows in $COMPARE_DB on $MYSQL_HOST:$MYSQL_PORT ..." >&2
"$VMBENCH" sysbench cleanup "${conn[@]}" --tables="$TABLES" >/dev/null 2>&1 || true
"$VMBENCH" sysbench prepare "${conn[@]}" "${shape[@]}" >&2

# run TOOL ROUND: one timed run; appends "tool round tps p95 cpu tx" to results.
run() {
  local tool=$1 round=$2 out=$work/$1.$2.out tm=$work/$1.$2.time
  case $tool in
    vmbench)
      /usr/bin/time -f '%U %S' -o "$tm" "$VMBENCH" sysbench run "$WORKLOAD" "${conn[@]}" "${shape[@]}" \
        --time="$TIME" --percentile=95 >"$out" 2>&1 || die "vmbench run failed: $(tail -5 "$out")" ;;
    sysbench)
      /usr/bin/time -f '%U %S' -o "$tm" "$SYSBENCH" "$WORKLOAD" run "${conn[@]}" "${shape[@]}" \
        --time="$TIME" --percentile=95 --mysql-ignore-errors=1213,1020,1205 >"$out" 2>&1 ||
        die "sysbench run failed: $(tail -5 "$out")" ;;
  esac
  local tx tps p95 cpu
  tx=$(awk '/transactions:/ {print $2; exit}' "$out")
  tps=$(awk '/transactions:/ {gsub(/\(/, "", $3); print $3; exit}' "$out")
  p95=$(awk '/95th percentile:/ {print $3; exit}' "$out")
  cpu=$(awk '{print $1 + $2}' "$tm")
  [[ -n $tx && -n $tps && -n $p95 ]] || die "could not read the $tool report: $(cat "$out")"
  echo "$tool $round $tps $p95 $cpu $tx" >>"$work/results"
  echo "round $round $tool: $tps tps, p95 $p95 ms, client CPU ${cpu}s" >&2
}

for ((r = 1; r <= ROUNDS; r++)); do
  run vmbench "$r"   # A
  run sysbench "$r"  # B
done

echo
echo "$WORKLOAD, $TABLES tables x $TABLE_SIZE rows, $THREADS threads, ${TIME}s per run, rand-type $RAND_TYPE, $ROUNDS rounds (A B A B)"
awk '
  { tps[$1] += $3; p95[$1] += $4; cpu[$1] += $5; tx[$1] += $6; n[$1]++
    rows[NR] = sprintf("%-6s %-9s %10.2f %9.2f %9.2f %14.3f", $2, $1, $3, $4, $5, 1000 * $5 / $6) }
  END {
    printf "%-6s %-9s %10s %9s %9s %14s\n", "round", "tool", "tps", "p95_ms", "cpu_s", "cpu_s/1000tx"
    for (i = 1; i <= NR; i++) print rows[i]
    for (t in n) { mt[t] = tps[t] / n[t]; mp[t] = p95[t] / n[t]; mc[t] = 1000 * cpu[t] / tx[t] }
    printf "%-6s %-9s %10.2f %9.2f %9s %14.3f\n", "mean", "vmbench", mt["vmbench"], mp["vmbench"], "", mc["vmbench"]
    printf "%-6s %-9s %10.2f %9.2f %9s %14.3f\n", "mean", "sysbench", mt["sysbench"], mp["sysbench"], "", mc["sysbench"]
    printf "%-16s %10.3f %9.3f %9s %14.3f\n", "vmbench/sysbench", mt["vmbench"] / mt["sysbench"], mp["vmbench"] / mp["sysbench"], "", mc["vmbench"] / mc["sysbench"]
  }' "$work/results"
