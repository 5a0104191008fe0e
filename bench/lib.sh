# shellcheck shell=bash
# bench/lib.sh: checks shared by the bench/ scripts; sourced, not run.
# A script sources it right after `set -euo pipefail`:
#   . "$(dirname "$0")/lib.sh"
# It defines die (messages prefixed with the script's name, exit 1) and:
#   check_server             check_loopback and check_port MYSQL_PORT (the
#                            MYSQL_* defaults are set when this file is sourced)
#   check_loopback [VAR]     VAR (MYSQL_HOST) is a loopback address
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
#   build_vmbench DIR        unless $VMBENCH names a binary, builds this
#                            checkout's vmbench (its root in $root) into DIR
#                            and sets VMBENCH; refuses one not executable
#   alternate_runs RUN REPORT for each WORKLOAD and each of THREADS, ROUNDS
#                            rounds of "RUN wl th vmbench r" then "RUN wl th
#                            sysbench r" (A B A B), then "REPORT wl th" for each
#   sysbench_defaults        the defaults of the sysbench compare scripts'
#                            settings (COMPARE_DB WORKLOAD TABLES TABLE_SIZE
#                            THREADS TIME ROUNDS RAND_TYPE SYSBENCH)
#   check_sysbench_run       WORKLOAD (a list of vmbench's workloads), RAND_TYPE,
#                            $SYSBENCH and /usr/bin/time for a compare script
#   record_run TOOL ROUND OUT TIME FILE
#                            appends "tool round tps p95 cpu tx ics vcs" of a
#                            sysbench-format report OUT and its /usr/bin/time
#                            file TIME to FILE
#   ratio_table FILE DIR     prints each round of FILE (lines "tool round tps
#                            p95 cpu tx ics vcs", tools vmbench and sysbench)
#                            and the median and spread of the per-round
#                            ratios vmbench/sysbench; DIR is scratch space
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
  # ::1; a name such as 127.example.com is not a loopback address. The
  # variable checked is $1, MYSQL_HOST by default.
  local v=${1:-MYSQL_HOST} h
  h=${!v}
  if ! [[ $h =~ ^127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ || $h == localhost || $h == ::1 ]]; then
    die "$v=$h is not a loopback address (127.x.y.z, localhost or ::1); this script only targets a local server"
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

# ratio_table FILE DIR: every round (a round is one vmbench run and the
# sysbench run right after it, so each ratio compares runs made minutes
# apart at most), then the median and spread of the per-round ratios
# vmbench/sysbench: TPS, p95, client CPU per transaction, involuntary
# context switches per transaction.
ratio_table() {
  awk '
    function median(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function lo(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
    function hi(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
    { t = $1; r = $2; tps[t, r] = $3; p95[t, r] = $4; cpt[t, r] = 1e6 * $5 / $6; ics[t, r] = $7 / $6; vcs[t, r] = $8 / $6
      if (r > rounds) rounds = r
      printf "%-6s %-9s %10.2f %9.2f %9.2f %12.1f %9.3f %9.3f\n", r, t, $3, $4, $5, 1e6 * $5 / $6, $7 / $6, $8 / $6 > "/dev/stderr" }
    END {
      for (r = 1; r <= rounds; r++) {
        a[r] = tps["vmbench", r] / tps["sysbench", r]; b[r] = p95["vmbench", r] / p95["sysbench", r]
        c[r] = cpt["vmbench", r] / cpt["sysbench", r]
        d[r] = ics["sysbench", r] > 0 ? ics["vmbench", r] / ics["sysbench", r] : 0
      }
      printf "%-16s %10s %9s %12s %9s\n", "vmbench/sysbench", "tps", "p95", "cpu_per_tx", "invcs/tx"
      printf "%-16s %10.3f %9.3f %12.3f %9.2f\n", (rounds > 1 ? "median" : "ratio"), median(a, rounds), median(b, rounds), median(c, rounds), median(d, rounds)
      if (rounds > 1)
        printf "%-16s %4.2f-%-5.2f %4.2f-%-4.2f %6.2f-%-5.2f %4.1f-%-4.1f\n", "spread (min-max)", lo(a, rounds), hi(a, rounds), lo(b, rounds), hi(b, rounds), lo(c, rounds), hi(c, rounds), lo(d, rounds), hi(d, rounds)
      else
        print "spread: none (one round; set ROUNDS=2 or more for a median and a spread)"
    }' "$1" 2>"$2/rounds" >"$2/ratios"
  printf "%-6s %-9s %10s %9s %9s %12s %9s %9s\n" round tool tps p95_ms cpu_s cpu_us/tx invcs/tx volcs/tx
  cat "$2/rounds" "$2/ratios"
}

# sysbench_defaults: the settings a sysbench compare script's caller did
# not give. RAND_TYPE: sysbench 1.0.20 defaults to special, vmbench to
# uniform, so both are given the same one.
# shellcheck disable=SC2034 # the calling script reads them
sysbench_defaults() {
  COMPARE_DB=${COMPARE_DB:-vmbench_compare}
  WORKLOAD=${WORKLOAD:-oltp_read_write}
  TABLES=${TABLES:-4}
  TABLE_SIZE=${TABLE_SIZE:-10000}
  THREADS=${THREADS:-8}
  TIME=${TIME:-10}
  ROUNDS=${ROUNDS:-2}
  RAND_TYPE=${RAND_TYPE:-uniform}
  SYSBENCH=${SYSBENCH:-sysbench}
}

# check_sysbench_run: WORKLOAD names vmbench's sysbench workloads, RAND_TYPE
# a distribution both tools know, and $SYSBENCH and /usr/bin/time exist.
check_sysbench_run() {
  local workloads=" oltp_read_write oltp_read_only oltp_write_only oltp_point_select oltp_update_index oltp_update_non_index oltp_insert oltp_delete " wl
  [[ -n ${WORKLOAD// /} ]] || die "WORKLOAD is empty; use one or more of:$workloads"
  for wl in $WORKLOAD; do
    [[ $workloads == *" $wl "* ]] || die "WORKLOAD: unknown workload \"$wl\" (valid:${workloads% })"
  done
  case $RAND_TYPE in
    uniform|gaussian|special|pareto) ;;
    *) die "RAND_TYPE=$RAND_TYPE: use uniform, gaussian, special or pareto (the ones both tools know)" ;;
  esac
  command -v "$SYSBENCH" >/dev/null ||
    die "sysbench not found; install sysbench 1.0.20 (Debian/Ubuntu: sudo apt-get install -y sysbench)"
  [[ -x /usr/bin/time ]] || die "/usr/bin/time not found (Debian/Ubuntu: sudo apt-get install -y time)"
}

# record_run TOOL ROUND OUT TIME FILE: reads transactions, TPS and the 95th
# percentile from the report OUT (both tools print sysbench's summary) and
# user+system CPU and context switches from TIME (/usr/bin/time -f
# '%U %S %c %w'), and appends them to FILE.
record_run() {
  local tool=$1 round=$2 out=$3 tm=$4 tx tps p95 cpu ics vcs
  tx=$(awk '/transactions:/ {print $2; exit}' "$out")
  tps=$(awk '/transactions:/ {gsub(/\(/, "", $3); print $3; exit}' "$out")
  p95=$(awk '/95th percentile:/ {print $3; exit}' "$out")
  read -r cpu ics vcs < <(awk '{print $1 + $2, $3, $4}' "$tm")
  [[ -n $tx && -n $tps && -n $p95 && -n $cpu ]] || die "could not read the $tool report: $(cat "$out")"
  echo "$tool $round $tps $p95 $cpu $tx $ics $vcs" >>"$5"
  echo "round $round $tool: $tps tps, p95 $p95 ms, client CPU ${cpu}s for $tx transactions" >&2
}

# build_vmbench DIR: VMBENCH, or this checkout's vmbench built into DIR.
root=$(cd "$(dirname "$0")/.." && pwd)
build_vmbench() {
  if [[ -z ${VMBENCH:-} ]]; then
    echo "building vmbench from $root ..." >&2
    (cd "$root" && go build -o "$1/vmbench" ./cmd/vmbench) || die "go build of vmbench failed; set VMBENCH to a built binary"
    VMBENCH=$1/vmbench
  fi
  [[ -x $VMBENCH ]] || die "VMBENCH=$VMBENCH is not executable"
}

# alternate_runs RUN REPORT: every round of every workload and thread
# count, vmbench first (A) and sysbench right after it (B), then the
# reports; a round's two runs are minutes apart at most.
alternate_runs() {
  local wl th r
  for wl in $WORKLOAD; do
    for th in $THREADS; do
      for ((r = 1; r <= ROUNDS; r++)); do
        "$1" "$wl" "$th" vmbench "$r"  # A
        "$1" "$wl" "$th" sysbench "$r" # B
      done
    done
  done
  for wl in $WORKLOAD; do
    for th in $THREADS; do
      "$2" "$wl" "$th"
    done
  done
}
