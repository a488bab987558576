#!/usr/bin/env bash
# Builds the fuzz targets and lays out DEST (default .fuzzbin at the repository
# root) for `run-long.sh` on a machine without Rust: the binaries, stripped of debug
# information and gzipped (ASan's runtime is linked in statically; they need
# libstdc++), the seed corpora, spec/ and vectors/{syntax,semantic}.
#
# SANITIZER=none builds without the address sanitizer (cargo-fuzz `-s none`: release
# code with debug assertions and coverage counters, about 3 to 5 times faster per
# unit, so that its unit times are close to release's), into fuzz/target-none.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:-.fuzzbin}
targets=(spec_loader check_syntax_line eval_record grade_results_line)
host=$(rustup run nightly rustc -vV | sed -n 's/^host: //p')
if [ "${SANITIZER:-address}" = none ]; then
  cargo +nightly fuzz build -s none --target-dir fuzz/target-none
  built=fuzz/target-none/$host/release
else
  cargo +nightly fuzz build
  built=fuzz/target/$host/release
fi
rm -rf "$dest"
mkdir -p "$dest/bin"
# Never tracked, whichever worktree this is.
echo '*' >"$dest/.gitignore"
for t in "${targets[@]}"; do
  strip -g -o "$dest/bin/$t" "$built/$t"
  gzip -9 "$dest/bin/$t"
done
cp -r fuzz/corpus "$dest/corpus"
tar -czf "$dest/root.tar.gz" spec/instructions spec/targets.yaml spec/errata.yaml spec/seeds \
  vectors/index.json vectors/syntax vectors/semantic
cp fuzz/run-long.sh "$dest/"
echo "${SANITIZER:-address}" >"$dest/sanitizer"
du -sh "$dest"
