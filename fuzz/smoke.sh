#!/usr/bin/env bash
# The fuzzers' smoke run, the maintainer's (CI replays the committed corpora as
# ordinary tests on stable instead, tests/fuzz_corpora.rs): builds the four
# cargo-fuzz targets (nightly, the address sanitizer and debug assertions,
# cargo-fuzz's defaults) and runs each for FUZZ_SECONDS (default 30) from its
# committed corpus, the four at once (wall time 30 s on 2 cores; each is a 30 s
# libFuzzer run, on a share of the cores). Exits 1 on a crash (a panic), a unit over
# 2 s (spec_loader: 20 s) or one over 2 GiB of memory; the unit is kept under
# fuzz/artifacts/<target>/ and the command that replays it is printed.
#
#   bash fuzz/smoke.sh          build (if needed), then run
#   bash fuzz/smoke.sh build    build only
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-30}
targets=(spec_loader check_syntax_line eval_record grade_results_line)

rustup run nightly rustc --version >/dev/null 2>&1 ||
  rustup toolchain install nightly --profile minimal
cargo fuzz --version >/dev/null 2>&1 || cargo install cargo-fuzz --locked
cargo +nightly fuzz build
[ "${1:-}" = build ] && exit 0
host=$(rustup run nightly rustc -vV | sed -n 's/^host: //p')
bin=fuzz/target/$host/release

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in "${targets[@]}"; do
  mkdir -p "$work/$t" "fuzz/artifacts/$t"
  # A unit over the limit fails the run. The fuzz build (address sanitizer, coverage,
  # debug assertions) runs 10 to 40 times slower than release, and a 28 KB spec file
  # can take 1.6 s there (54-83 ms in release: README.md, "Recorded long run"), so
  # spec_loader's limit is wider; four targets sharing two cores slow each further.
  limit=2
  [ "$t" = spec_loader ] && limit=20
  "$bin/$t" "$work/$t" "fuzz/corpus/$t" -max_total_time="$secs" -timeout="$limit" \
    -rss_limit_mb=2048 -artifact_prefix="fuzz/artifacts/$t/" -print_final_stats=1 \
    >"$work/$t.log" 2>&1 &
  echo $! >"$work/$t.pid"
done
status=0
for t in "${targets[@]}"; do
  log=$work/$t.log
  if wait "$(cat "$work/$t.pid")"; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    slowest=$(sed -n 's/^ptxvec-fuzz: slowest unit: \([0-9]*\) us.*/\1/p' "$log" | tail -n 1)
    echo "fuzz $t: ok, $runs runs in ${secs} s, slowest unit ${slowest:-0} us"
  else
    tail -n 60 "$log"
    echo "fuzz $t: FAILED; replay: cargo +nightly fuzz run $t fuzz/artifacts/$t/<file>"
    status=1
  fi
done
exit "$status"
