#!/usr/bin/env bash
# The fuzzers' smoke run for CI: builds the four cargo-fuzz targets (nightly, the
# address sanitizer and debug assertions, cargo-fuzz's defaults) and runs each for
# FUZZ_SECONDS (default 30) from its committed corpus. Exits 1 on a crash (a panic),
# a unit over 1 s (spec_loader: 10 s) or one over 2 GiB of memory; the unit is kept under
# fuzz/artifacts/<target>/ and the command that replays it is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-30}
targets=(spec_loader check_syntax_line eval_record grade_results_line)

rustup run nightly rustc --version >/dev/null 2>&1 ||
  rustup toolchain install nightly --profile minimal
cargo fuzz --version >/dev/null 2>&1 || cargo install cargo-fuzz --locked
cargo +nightly fuzz build
host=$(rustup run nightly rustc -vV | sed -n 's/^host: //p')
bin=fuzz/target/$host/release

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for t in "${targets[@]}"; do
  mkdir -p "$work/$t" "fuzz/artifacts/$t"
  log=$work/$t.log
  # A unit over the limit fails the run. The fuzz build (address sanitizer, coverage,
  # debug assertions) runs 10 to 40 times slower than release, and a 28 KB spec file
  # can take 1.6 s there (54-83 ms in release: README.md, "Recorded long run"), so
  # spec_loader's limit is wider.
  limit=1
  [ "$t" = spec_loader ] && limit=10
  if "$bin/$t" "$work/$t" "fuzz/corpus/$t" -max_total_time="$secs" -timeout="$limit" \
    -rss_limit_mb=2048 -artifact_prefix="fuzz/artifacts/$t/" -print_final_stats=1 \
    >"$log" 2>&1; then
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
