#!/usr/bin/env bash
# tpcc-compare.sh: run `vmbench tpcc run --threads` and go-tpc's `tpcc run`
# against the same local MariaDB/MySQL with the same warehouses, threads and
# time, both closed loop without keying or think times, alternating A B A B
# for ROUNDS rounds. Per round it prints tpmC, the transactions completed,
# the client's CPU seconds (user+system), its CPU ms per 1,000 transactions
# and its involuntary and voluntary context switches per transaction; at the
# end the median of the per-round ratios vmbench/go-tpc with their min-max
# (with ROUNDS=1 the one ratio, and no spread).
#
# go-tpc is built from a source checkout you name in GO_TPC_SRC (go build
# ./cmd/go-tpc there); nothing of it is kept in this tree. Without GO_TPC_SRC
# the script checks its other settings, says it skips and exits 0.
#
# Each tool loads its own database once (their schemas differ: go-tpc has
# its own column types, indexes and no vmbench metadata table), so both run
# on a fresh load; the rounds then run on the data the earlier rounds left.
# Both count intended New-Order rollbacks (1 %) in tpmC; transactions are
# the five types' completions (go-tpc: the [Summary] counts of operations
# without the _ERR suffix).
#
# Only a loopback server is accepted: this script creates its two databases
# and drops them at the end. It refuses to start (exit 1, nothing touched)
# when either already exists, so it never drops a database it did not make.
# All settings are checked before anything is built or loaded.
#
# Environment (defaults in brackets):
#   GO_TPC_SRC []  a go-tpc source checkout, e.g. a clone of github.com/pingcap/go-tpc
#   MYSQL_HOST [127.0.0.1]  MYSQL_PORT [3306]  MYSQL_USER [root]  MYSQL_PASSWORD []
#   COMPARE_DB [vmbench_tpcc_compare]  (letters, digits, _; vmbench uses
#     COMPARE_DB_vmb, go-tpc COMPARE_DB_gotpc; neither may exist; both created
#     by this script, dropped at the end)
#   WAREHOUSES [2]  LOAD_THREADS [2]  THREADS [8]  TIME [20] (seconds per run)  ROUNDS [2]
#     (all whole numbers >= 1)
#   VMBENCH [built from this checkout with go build]
#   Needs the mariadb (or mysql) client and /usr/bin/time.
#
# Example:
#   GO_TPC_SRC=~/src/go-tpc WAREHOUSES=2 THREADS=8 TIME=20 ROUNDS=2 bench/tpcc-compare.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

COMPARE_DB=${COMPARE_DB:-vmbench_tpcc_compare}
WAREHOUSES=${WAREHOUSES:-2}
LOAD_THREADS=${LOAD_THREADS:-2}
THREADS=${THREADS:-8}
TIME=${TIME:-20}
ROUNDS=${ROUNDS:-2}

check_server
check_counts WAREHOUSES LOAD_THREADS THREADS TIME ROUNDS
check_ident COMPARE_DB 6 # + _gotpc
if [[ -z ${GO_TPC_SRC:-} ]]; then
  echo "tpcc-compare: GO_TPC_SRC is not set; skipping (set it to a go-tpc source checkout, e.g. git clone https://github.com/pingcap/go-tpc)" >&2
  exit 0
fi
[[ -f $GO_TPC_SRC/cmd/go-tpc/main.go ]] || die "GO_TPC_SRC=$GO_TPC_SRC has no cmd/go-tpc/main.go; is it a go-tpc checkout?"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (Debian/Ubuntu: sudo apt-get install -y time)"
need_client
vdb=${COMPARE_DB}_vmb
gdb=${COMPARE_DB}_gotpc
check_db_absent "$vdb" "$gdb"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build_vmbench "$work"
echo "building go-tpc from $GO_TPC_SRC ..." >&2
(cd "$GO_TPC_SRC" && go build -o "$work/go-tpc" ./cmd/go-tpc) || die "go build of go-tpc in $GO_TPC_SRC failed"
GOTPC=$work/go-tpc

export TPCC_PASSWORD=$MYSQL_PASSWORD
vconn=(-H "$MYSQL_HOST" -P "$MYSQL_PORT" -U "$MYSQL_USER" -D "$vdb" --warehouses "$WAREHOUSES")
gconn=(-H "$MYSQL_HOST" -P "$MYSQL_PORT" -U "$MYSQL_USER" -D "$gdb" --warehouses "$WAREHOUSES")
[[ -n $MYSQL_PASSWORD ]] && gconn+=(-p "$MYSQL_PASSWORD")

trap 'drop_created; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
create_db "$vdb"
create_db "$gdb"

echo "loading $WAREHOUSES warehouses into $vdb (vmbench) and $gdb (go-tpc) ..." >&2
"$VMBENCH" tpcc prepare "${vconn[@]}" --threads "$LOAD_THREADS" >"$work/vprep.out" 2>&1 ||
  die "vmbench tpcc prepare failed: $(tail -5 "$work/vprep.out")"
"$GOTPC" tpcc prepare "${gconn[@]}" -T "$LOAD_THREADS" --no-check >"$work/gprep.out" 2>&1 ||
  die "go-tpc tpcc prepare failed: $(tail -5 "$work/gprep.out")"

# run TOOL ROUND: one timed run; appends "tool round tpmc tx cpu_s invcs volcs" to results.
run() {
  local tool=$1 round=$2 out=$work/$1.$2.out tm=$work/$1.$2.time tpmc tx
  case $tool in
    vmbench)
      /usr/bin/time -f '%U %S %c %w' -o "$tm" "$VMBENCH" tpcc run "${vconn[@]}" --threads "$THREADS" \
        --time "$TIME" --report-interval 0 >"$out" 2>&1 || die "vmbench run failed: $(tail -5 "$out")"
      tpmc=$(awk '/^tpmC:/ {print $2; exit}' "$out")
      tx=$(awk '/^Transaction +Count/ {t = 1; next}
        t && $1 ~ /^(new_order|payment|order_status|delivery|stock_level)$/ {n += $2}
        t && NF == 0 {exit} END {print n + 0}' "$out") ;;
    go-tpc)
      /usr/bin/time -f '%U %S %c %w' -o "$tm" "$GOTPC" tpcc run "${gconn[@]}" -T "$THREADS" \
        --time "${TIME}s" --interval "$((TIME + 60))s" >"$out" 2>&1 || die "go-tpc run failed: $(tail -5 "$out")"
      tpmc=$(awk '/^tpmC:/ {gsub(/,/, "", $2); print $2; exit}' "$out")
      tx=$(awk '/^\[Summary\]/ && $2 !~ /_ERR$/ {
        for (i = 3; i <= NF; i++) if ($i == "Count:") { c = $(i + 1); gsub(/,/, "", c); n += c } }
        END {print n + 0}' "$out") ;;
  esac
  [[ -n $tpmc && $tx -gt 0 ]] || die "could not read the $tool report: $(cat "$out")"
  echo "$tool $round $tpmc $tx $(cat "$tm")" | awk '{print $1, $2, $3, $4, $5 + $6, $7, $8}' >>"$work/results"
  echo "round $round $tool: tpmC $tpmc, $tx transactions, client CPU $(awk '{print $1 + $2}' "$tm") s" >&2
}

for ((r = 1; r <= ROUNDS; r++)); do
  run vmbench "$r" # A
  run go-tpc "$r"  # B
done

echo
echo "TPC-C, $WAREHOUSES warehouses, $THREADS threads, no waits, ${TIME}s per run, $(rounds_phrase "$ROUNDS"); MySQL $MYSQL_HOST:$MYSQL_PORT"
echo "vmbench $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), go-tpc $(git -C "$GO_TPC_SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)"
awk '
  function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { tpmc[$1, $2] = $3; tx[$1, $2] = $4; cpu[$1, $2] = $5; ms[$1, $2] = 1e6 * $5 / $4
    ic[$1, $2] = $6 / $4; vc[$1, $2] = $7 / $4; if ($2 > rounds) rounds = $2 }
  END {
    printf "%-6s %-8s %10s %9s %8s %12s %11s %11s\n", "round", "tool", "tpmC", "tx", "cpu_s", "cpu_ms/1000tx", "invcs/tx", "volcs/tx"
    for (r = 1; r <= rounds; r++) for (k = 0; k < 2; k++) {
      t = k ? "go-tpc" : "vmbench"
      printf "%-6s %-8s %10.1f %9d %8.2f %12.1f %11.2f %11.2f\n", r, t, tpmc[t, r], tx[t, r], cpu[t, r], ms[t, r], ic[t, r], vc[t, r]
    }
    split("tpmC cpu_ms/1000tx invcs/tx volcs/tx", names, " ")
    print ""
    if (rounds > 1) printf "%-30s %8s %8s %8s\n", "ratio vmbench/go-tpc", "median", "min", "max"
    else printf "%-30s %8s   (one round: no spread)\n", "ratio vmbench/go-tpc", "ratio"
    for (m = 1; m <= 4; m++) {
      lo = ""; hi = ""
      for (r = 1; r <= rounds; r++) {
        if (m == 1) { a = tpmc["vmbench", r]; b = tpmc["go-tpc", r] }
        if (m == 2) { a = ms["vmbench", r]; b = ms["go-tpc", r] }
        if (m == 3) { a = ic["vmbench", r]; b = ic["go-tpc", r] }
        if (m == 4) { a = vc["vmbench", r]; b = vc["go-tpc", r] }
        q[r] = b > 0 ? a / b : 0
        if (lo == "" || q[r] < lo) lo = q[r]
        if (hi == "" || q[r] > hi) hi = q[r]
      }
      if (rounds > 1) printf "%-30s %8.3f %8.3f %8.3f\n", names[m], median(q, rounds), lo, hi
      else printf "%-30s %8.3f\n", names[m], q[1]
    }
  }' "$work/results"
