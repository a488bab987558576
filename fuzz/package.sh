#!/usr/bin/env bash
# Builds the fuzz targets and lays out DEST (default .fuzzbin at the repository
# root) for `run-long.sh` on a machine without Rust: the binaries, stripped of debug
# information and gzipped (ASan's runtime is linked in statically; they need
# libstdc++), the seed corpora, spec/ and vectors/{syntax,semantic}.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:-.fuzzbin}
targets=(spec_loader check_syntax_line eval_record grade_results_line)
cargo +nightly fuzz build
host=$(rustup run nightly rustc -vV | sed -n 's/^host: //p')
rm -rf "$dest"
mkdir -p "$dest/bin"
# Never tracked, whichever worktree this is.
echo '*' >"$dest/.gitignore"
for t in "${targets[@]}"; do
  strip -g -o "$dest/bin/$t" "fuzz/target/$host/release/$t"
  gzip -9 "$dest/bin/$t"
done
cp -r fuzz/corpus "$dest/corpus"
tar -czf "$dest/root.tar.gz" spec/instructions spec/targets.yaml spec/errata.yaml spec/seeds \
  vectors/index.json vectors/syntax vectors/semantic
cp fuzz/run-long.sh "$dest/"
du -sh "$dest"
