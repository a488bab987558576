#!/usr/bin/env bash
# The long fuzz run (issue 15: >= 10^7 executions per target, no crash), on a
# machine without Rust. Self-contained: it reads only what lies beside it, as
# `fuzz/package.sh` lays it out:
#   bin/<target>.gz        the cargo-fuzz binaries (libFuzzer, ASan, debug assertions)
#   corpus/<target>/       the committed seed corpora
#   root.tar.gz            spec/, vectors/index.json, vectors/{syntax,semantic}: what the targets load
#
#   bash run-long.sh LOGDIR [SECONDS]
#
# Every target starts WORKERS_<target> independent libFuzzer processes (different
# seeds, one shared corpus per target, which each reloads), each until it has
# executed its share of RUNS (default 10^7 per target) or SECONDS have passed
# (default 480, so that extraction and the summary fit a 9-minute command). The
# defaults fill 16 cores by each target's cost; when a worker ends early (the fast
# targets reach their runs in a few minutes), a new one of the BACKFILL targets
# takes its core for the time left, so that CORES (default: nproc) stay busy.
# TARGETS (space-separated) runs a subset; ARGS_<target> adds libFuzzer flags to
# that target's workers (e.g. ARGS_spec_loader=-max_len=8192). At the end it prints, per target, the
# executions, the crashes (panics, units over 1 s, units over 2 GiB: files under
# LOGDIR/artifacts/<target>/) and the slowest unit, which the targets time
# themselves to the microsecond; units of 100 ms or more are kept under
# LOGDIR/slow/<target>/; a timeout's unit is worth replaying with the release CLI
# before calling it slow. Times are the fuzz build's (ASan, coverage, debug
# assertions), 10 to 40 times release's. Exit 1 if any crashed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
logs=${1:?usage: run-long.sh LOGDIR [SECONDS]}
secs=${2:-480}
runs_total=${RUNS:-10000000}
cores=${CORES:-$(nproc)}
targets=(${TARGETS:-spec_loader check_syntax_line eval_record grade_results_line})
: "${WORKERS_spec_loader:=8}" "${WORKERS_grade_results_line:=4}"
: "${WORKERS_check_syntax_line:=2}" "${WORKERS_eval_record:=2}"
backfill=()
for t in ${BACKFILL:-spec_loader grade_results_line spec_loader}; do
  [[ " ${targets[*]} " == *" $t "* ]] && backfill+=("$t")
done

mkdir -p "$logs"
logs=$(cd "$logs" && pwd)
mkdir -p "$logs/bin" "$logs/root"
tar -xzf "$here/root.tar.gz" -C "$logs/root"
export PTXVEC_FUZZ_ROOT=$logs/root
start=$(date +%s)

# launch TARGET NAME SECONDS RUNS: one worker, logging to LOGDIR/TARGET.NAME.log.
seed=0
launch() {
  seed=$((seed + 1))
  local flags=ARGS_$1
  # shellcheck disable=SC2086 # the flags are words
  PTXVEC_FUZZ_SLOW_DIR=$logs/slow/$1 "$logs/bin/$1" "$logs/corpus/$1" ${!flags:-} \
    -seed="$seed" -runs="$4" -max_total_time="$3" -timeout=1 -rss_limit_mb=2048 \
    -artifact_prefix="$logs/artifacts/$1/" -print_final_stats=1 \
    >"$logs/$1.$2.log" 2>&1 &
}

echo "build: $(cat "$here/sanitizer" 2>/dev/null || echo address) sanitizer; nproc $(nproc)"
for t in "${targets[@]}"; do
  var=ARGS_$t
  [ -z "${!var:-}" ] || echo "$t: libFuzzer flags ${!var}"
  gunzip -c "$here/bin/$t.gz" >"$logs/bin/$t"
  chmod +x "$logs/bin/$t"
  mkdir -p "$logs/corpus/$t" "$logs/artifacts/$t" "$logs/slow/$t"
  cp "$here/corpus/$t/"* "$logs/corpus/$t/"
  var=WORKERS_$t
  n=${!var}
  [ "$n" -gt 0 ] || continue
  per=$(((runs_total + n - 1) / n))
  for i in $(seq 1 "$n"); do
    launch "$t" "$i" "$secs" "$per"
  done
  echo "$t: $n workers, $per runs each, at most $secs s"
done

extra=0
while :; do
  wait -n 2>/dev/null
  left=$((start + secs - $(date +%s)))
  running=$(jobs -rp | wc -l)
  while [ "${#backfill[@]}" -gt 0 ] && [ "$left" -gt 30 ] && [ "$running" -lt "$cores" ]; do
    t=${backfill[extra % ${#backfill[@]}]}
    extra=$((extra + 1))
    echo "$t: backfill worker b$extra, $left s"
    launch "$t" "b$extra" "$left" -1
    running=$((running + 1))
  done
  [ "$running" -gt 0 ] || break
done

status=0
echo
printf '%-20s %12s %8s %9s %12s  %s\n' target executions crashes timeouts slowest_us "slowest unit (bytes)"
for t in "${targets[@]}"; do
  execs=0
  for f in "$logs/$t".*.log; do
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$f" | tail -n 1)
    # A worker killed before its final stats: its last status line.
    [ -n "$n" ] || n=$(grep -o '^#[0-9]*' "$f" | tail -n 1 | tr -d '#')
    execs=$((execs + ${n:-0}))
  done
  # crash-* a panic or signal, oom-* over 2 GiB, leak-*; timeout-* a unit over 1 s.
  crashes=$(find "$logs/artifacts/$t" -type f ! -name 'timeout-*' | wc -l)
  timeouts=$(find "$logs/artifacts/$t" -type f -name 'timeout-*' | wc -l)
  slowest=$(cat "$logs/$t".*.log | sed -n 's/^ptxvec-fuzz: slowest unit: \([0-9]*\) us (\([0-9]*\) bytes).*/\1 \2/p' |
    sort -n | tail -n 1)
  printf '%-20s %12s %8s %9s %12s  %s\n' "$t" "$execs" "$crashes" "$timeouts" "${slowest% *}" "${slowest#* }"
  [ $((crashes + timeouts)) -eq 0 ] || status=1
done
for t in "${targets[@]}"; do
  for a in "$logs/artifacts/$t"/*; do
    [ -e "$a" ] || continue
    echo
    echo "== $t: $(basename "$a") ($(wc -c <"$a") bytes); its worker's log says:"
    grep -l "$(basename "$a")" "$logs/$t".*.log | head -n 1 | xargs -r grep -m 1 -B 2 -A 12 -E 'panicked|ERROR: libFuzzer'
  done
done
exit "$status"
