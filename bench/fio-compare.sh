#!/usr/bin/env bash
# fio-compare.sh: run `vmbench vdbench run` and fio (Debian's package) on the
# same preconditioned file with the same number of outstanding I/Os, for two
# workloads, 4K random read and 64K sequential read, alternating A B A B for
# ROUNDS rounds, and print IOPS, mean latency and the client's CPU seconds per
# million I/Os side by side, with the ratios vmbench/fio (medians of the rounds).
#
# Both tools bypass the page cache (vdbench openflags=o_direct, fio direct=1),
# issue one blocking pread per thread (vdbench threads=N, fio psync numjobs=N),
# run RAMP seconds unmeasured (vdbench warmup=, fio ramp_time=) and then TIME
# seconds (interval=1: vmbench wants elapsed= at least twice interval=, and
# without warmup= it would leave the first interval out). IOPS and mean
# latency come from each tool's own report: vmbench's run record (<rd>.json:
# achieved_iops, service_time.mean_ns, the time around each pread) and fio's
# JSON (read.iops, read.lat_ns.mean). The client CPU is
# user+system from /usr/bin/time; per million I/Os it is divided by
# IOPS x (RAMP + TIME), the I/Os of the whole run at the measured rate, the same
# estimate for both tools (fio does not count the I/Os of its ramp).
#
# Sequential read with N threads. In vdbench (and vmbench) all threads of a wd
# share one stream: each I/O takes the next 64K of the file, so N consecutive
# reads are in flight. fio's psync numjobs=N instead runs N independent streams,
# and on one file without offsets they would read the same blocks in near
# lockstep, so a cache anywhere below would serve most of them. The default here
# is the closest equivalent with the same thread model: fio numjobs=N with
# size=SIZE/N and offset_increment=SIZE/N, N streams over disjoint slices that
# together cover the same span, N reads in flight, and the same per-I/O
# syscall cost as vmbench (so the CPU figures compare like with like). The
# access pattern is N sequential streams, not one. FIO_ENGINE=libaio gives
# the other equivalent: one job with iodepth=N over the whole file, one stream
# with N consecutive reads in flight as in vdbench, but an asynchronous engine
# on one thread, so its CPU figure is not the same model as vmbench's.
# FIO_ENGINE=io_uring is the same shape with fio's io_uring engine (one job,
# iodepth=N), the peer of VMBENCH_ENGINE=io_uring (vmbench --ioengine
# io_uring: the same N I/Os in flight through one io_uring per target).
#
# Besides the medians of each tool, the ratios vmbench/fio are given per
# round (round k of vmbench against round k of fio, run next to each other),
# as their median and their spread (min-max over the rounds); with ROUNDS=1
# the one round's ratios, and no spread.
#
# Safety: the test file is created by this script (and removed at the end) in
# DIR, by default a temporary directory under the current directory, so on its
# disk. tmpfs, ramfs and /dev/shm are refused (they measure memory, and refuse
# O_DIRECT). A block device as DIR is refused unless FORCE=1: then its first
# SIZE bytes are overwritten by the preconditioning, and a device that is
# mounted (or has a mounted partition) is refused even so.
#
# Environment (defaults in brackets):
#   DIR [a new temporary directory under $PWD]  SIZE [1g] (k, m, g, t: binary)
#   THREADS [16] (outstanding I/Os)  TIME [10] (seconds per run)  RAMP [1] (0: none)
#   ROUNDS [2]  (THREADS, TIME, ROUNDS: whole numbers >= 1; RAMP >= 0)  FIO_ENGINE [psync] (or libaio, io_uring)  FORCE [0]
#   VMBENCH_ENGINE [psync] (or io_uring: vmbench vdbench run --ioengine)
#   VMBENCH [built from this checkout with go build]  FIO [fio]
#
# Example:
#   THREADS=16 TIME=10 ROUNDS=2 bench/fio-compare.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

SIZE=${SIZE:-1g}
THREADS=${THREADS:-16}
TIME=${TIME:-10}
RAMP=${RAMP:-1}
ROUNDS=${ROUNDS:-2}
FIO=${FIO:-fio}
FIO_ENGINE=${FIO_ENGINE:-psync}
VMBENCH_ENGINE=${VMBENCH_ENGINE:-psync}
FORCE=${FORCE:-0}

check_counts THREADS TIME ROUNDS
((TIME >= 2)) || die "TIME=$TIME: at least 2 (vmbench wants elapsed= at least twice interval=1)"
[[ $RAMP =~ ^(0|[1-9][0-9]{0,8})$ ]] || die "RAMP=$RAMP is not a whole number >= 0"
[[ $FIO_ENGINE == psync || $FIO_ENGINE == libaio || $FIO_ENGINE == io_uring ]] ||
  die "FIO_ENGINE=$FIO_ENGINE: use psync, libaio or io_uring"
[[ $VMBENCH_ENGINE == psync || $VMBENCH_ENGINE == io_uring ]] ||
  die "VMBENCH_ENGINE=$VMBENCH_ENGINE: use psync or io_uring"
[[ ${SIZE,,} =~ ^([0-9]+)([kmgt]?)$ ]] || die "SIZE=$SIZE is not a size (e.g. 512m, 1g)"
case ${BASH_REMATCH[2]} in
  k) shift_by=10 ;; m) shift_by=20 ;; g) shift_by=30 ;; t) shift_by=40 ;; *) shift_by=0 ;;
esac
bytes=$((BASH_REMATCH[1] << shift_by))
((bytes >= 1 << 20 && bytes % (1 << 20) == 0)) || die "SIZE=$SIZE must be a whole number of MiB, at least 1m"
# per-job slice for fio's sequential psync streams: a multiple of 64K
slice=$((bytes / THREADS / 65536 * 65536))
((slice > 0)) || die "SIZE=$SIZE is too small for $THREADS threads of 64K"

command -v "$FIO" >/dev/null ||
  die "fio not found; install it (Debian/Ubuntu: sudo apt-get install -y fio)"
command -v jq >/dev/null || die "jq not found (Debian/Ubuntu: sudo apt-get install -y jq)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (Debian/Ubuntu: sudo apt-get install -y time)"

work=$(mktemp -d)
made_dir='' target=''
cleanup() {
  if [[ -n $made_dir ]]; then rm -rf "$made_dir"; elif [[ -f $target ]]; then rm -f "$target"; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ -z ${DIR:-} ]]; then
  made_dir=$(mktemp -d -p "$PWD" .fio-compare.XXXXXX) || die "cannot create a directory under $PWD"
  DIR=$made_dir
fi
[[ -e $DIR ]] || die "DIR=$DIR does not exist"
[[ $DIR =~ ^[A-Za-z0-9_./+-]+$ ]] || die "DIR=$DIR: use a path of letters, digits and _ . / + - only (it goes into a vdbench parameter file, where a blank or a comma ends the value)"
real=$(realpath "$DIR")
case $real/ in /dev/shm/*|/run/shm/*) die "DIR=$DIR is in shared memory; pick a directory on the disk to test" ;; esac
if [[ -b $real ]]; then
  [[ $FORCE == 1 ]] || die "DIR=$DIR is a block device; its first $SIZE would be overwritten (set FORCE=1 to allow)"
  [[ -z $(lsblk -nro MOUNTPOINT "$real" | tr -d '[:space:]') ]] ||
    die "$real (or a partition of it) is mounted; refusing even with FORCE=1"
  (($(blockdev --getsize64 "$real") >= bytes)) || die "SIZE=$SIZE is larger than $real"
  target=$real where=$real
else
  [[ -d $real ]] || die "DIR=$DIR is neither a directory nor a block device"
  case $(stat -f -c %T "$real") in
    tmpfs|ramfs) die "DIR=$DIR is on $(stat -f -c %T "$real"): memory, not a disk" ;;
  esac
  avail=$(df -P -B1 "$real" | awk 'NR == 2 {print $4}')
  ((avail > bytes + (256 << 20))) || die "DIR=$DIR has $avail bytes free; SIZE=$SIZE needs more"
  target=$(mktemp -p "$real" vmbench-fio-compare.XXXXXX.dat)
  where=$(df -P "$real" | awk 'NR == 2 {print $1}')
fi

build_vmbench "$work"

# Precondition once: write every byte of the span (incompressible data, past
# the page cache), so no read hits a hole or a never-written extent.
echo "preconditioning $target: writing $SIZE ..." >&2
dd if=/dev/urandom of="$target" bs=1M count=$((bytes >> 20)) oflag=direct conv=notrunc,fsync status=none ||
  die "preconditioning $target failed"

# workload NAME: sets title, xfer, seekpct (vdbench) and rw (fio).
workload() {
  case $1 in
    randread) title="4K random read" xfer=4k seekpct=100 rw=randread ;;
    seqread) title="64K sequential read" xfer=64k seekpct=0 rw=read ;;
  esac
}

# run TOOL WORKLOAD ROUND: one timed run; appends
# "workload tool round iops lat_us cpu_s" to results.
run() {
  local tool=$1 wl=$2 round=$3 out=$work/$1.$2.$3 tm=$work/$1.$2.$3.time iops lat cpu
  workload "$wl"
  case $tool in
    vmbench)
      cat >"$work/$wl.vdb" <<EOF
sd=sd1,lun=$target,size=$bytes,threads=$THREADS,openflags=o_direct
wd=$wl,sd=sd1,xfersize=$xfer,rdpct=100,seekpct=$seekpct
rd=$wl,wd=$wl,iorate=max,elapsed=$TIME,interval=1,warmup=$RAMP
EOF
      /usr/bin/time -f '%U %S' -o "$tm" "$VMBENCH" vdbench run --ioengine "$VMBENCH_ENGINE" "$work/$wl.vdb" -o "$out.d" >"$out" 2>&1 ||
        die "vmbench run failed: $(tail -5 "$out")"
      read -r iops lat < <(jq -r '.points[0] | "\(.achieved_iops) \(.service_time.mean_ns / 1000)"' "$out.d/$wl.json") ||
        die "could not read $out.d/$wl.json"
      grep -o 'GOMAXPROCS [0-9]*' "$out.d/$wl.json" | head -1 >"$work/procs.$wl" || true ;;
    fio)
      local -a shape=(--ioengine=psync --numjobs="$THREADS" --size="$bytes")
      if [[ $FIO_ENGINE != psync ]]; then
        shape=(--ioengine="$FIO_ENGINE" --iodepth="$THREADS" --numjobs=1 --size="$bytes")
      elif [[ $rw == read ]]; then
        shape=(--ioengine=psync --numjobs="$THREADS" --size="$slice" --offset_increment="$slice")
      fi
      /usr/bin/time -f '%U %S' -o "$tm" "$FIO" --name="$wl" --filename="$target" --rw="$rw" --bs="$xfer" \
        --direct=1 --thread --group_reporting --norandommap --randrepeat=0 --time_based \
        --runtime="$TIME" --ramp_time="$RAMP" "${shape[@]}" --output-format=json --output="$out.json" \
        >"$out" 2>&1 || die "fio run failed: $(tail -5 "$out")"
      [[ $(jq '.jobs[0].error' "$out.json") == 0 ]] || die "fio reported an error: $(jq -c '.jobs[0].error' "$out.json")"
      read -r iops lat < <(jq -r '.jobs[0].read | "\(.iops) \(.lat_ns.mean / 1000)"' "$out.json") ||
        die "could not read $out.json" ;;
  esac
  cpu=$(awk '{print $1 + $2}' "$tm")
  [[ -n $iops && -n $lat && -n $cpu ]] || die "no figures from $tool ($wl, round $round)"
  echo "$wl $tool $round $iops $lat $cpu" >>"$work/results"
  printf 'round %d %-7s %-8s %10.0f IOPS, mean %8.1f us, client CPU %6.2f s\n' "$round" "$tool" "$wl" "$iops" "$lat" "$cpu" >&2
}

for ((r = 1; r <= ROUNDS; r++)); do
  for wl in randread seqread; do
    run vmbench "$wl" "$r"  # A
    run fio "$wl" "$r"      # B
  done
done

if [[ $FIO_ENGINE != psync ]]; then
  fio_shape="fio $FIO_ENGINE, 1 job, iodepth=$THREADS"
else
  fio_shape="fio psync, numjobs=$THREADS"
fi
for wl in randread seqread; do
  workload "$wl"
  extra=
  [[ $wl == seqread && $FIO_ENGINE == psync ]] && extra=" (each job a $((slice >> 20)) MiB slice)"
  echo
  echo "$title, $THREADS outstanding I/Os: vmbench threads=$THREADS --ioengine $VMBENCH_ENGINE ($(cat "$work/procs.$wl" 2>/dev/null)), $fio_shape$extra"
  echo "$SIZE file on $where, ${TIME}s (+${RAMP}s ramp) per run, $(rounds_phrase "$ROUNDS"), $("$FIO" --version)"
  awk -v wl="$wl" -v secs=$((TIME + RAMP)) '
    function median(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    $1 == wl {
      k = ++n[$2]; iops[$2, k] = $4; lat[$2, k] = $5; cpu[$2, k] = $6; mio[$2, k] = 1e6 * $6 / ($4 * secs)
      rows[++nr] = sprintf("%-8s %-8s %11.0f %11.1f %9.2f %13.2f", $3, $2, $4, $5, $6, mio[$2, k])
    }
    END {
      printf "%-8s %-8s %11s %11s %9s %13s\n", "round", "tool", "IOPS", "avg_lat_us", "cpu_s", "cpu_s/M_IOs"
      for (i = 1; i <= nr; i++) print rows[i]
      split("vmbench fio", tools, " ")
      for (t = 1; t <= 2; t++) {
        tool = tools[t]
        for (k = 1; k <= n[tool]; k++) { a[k] = iops[tool, k]; b[k] = lat[tool, k]; c[k] = cpu[tool, k]; d[k] = mio[tool, k] }
        mi[tool] = median(a, n[tool]); ml[tool] = median(b, n[tool]); mc[tool] = median(c, n[tool]); mm[tool] = median(d, n[tool])
        printf "%-8s %-8s %11.0f %11.1f %9.2f %13.2f\n", "median", tool, mi[tool], ml[tool], mc[tool], mm[tool]
      }
      printf "%-17s %11.3f %11.3f %9.3f %13.3f\n", "vmbench/fio", mi["vmbench"] / mi["fio"], ml["vmbench"] / ml["fio"],
        mc["vmbench"] / mc["fio"], mm["vmbench"] / mm["fio"]
      # per-round ratios: round k of vmbench over round k of fio
      m = n["vmbench"] < n["fio"] ? n["vmbench"] : n["fio"]
      if (m > 1) printf "per-round vmbench/fio (median, min-max of %d rounds):\n", m
      else print "per-round vmbench/fio (one round: its ratio, no spread):"
      split("IOPS mean_latency CPU_per_IO", what, " ")
      for (q = 1; q <= 3; q++) {
        lo = hi = ""
        for (k = 1; k <= m; k++) {
          if (q == 1) v = iops["vmbench", k] / iops["fio", k]
          if (q == 2) v = lat["vmbench", k] / lat["fio", k]
          if (q == 3) v = mio["vmbench", k] / mio["fio", k]
          a[k] = v
          if (lo == "" || v < lo) lo = v
          if (hi == "" || v > hi) hi = v
        }
        if (m > 1) printf "  %-13s %7.3f  (%.3f-%.3f)\n", what[q], median(a, m), lo, hi
        else printf "  %-13s %7.3f\n", what[q], a[1]
      }
    }' "$work/results"
done
